// Deterministic text for generated sessions: a seeded random source, and two corpora (prose
// and code) from which prompts, answers, file contents and command outputs are cut. Texts vary
// in length and content, so tokenisers see something close to real agent traffic.

/** A seeded pseudo-random source (mulberry32): the same seed gives the same sequence. */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let value = this.state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  integer(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<Item>(items: readonly Item[]): Item {
    return items[Math.floor(this.next() * items.length)] as Item;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }
}

const proseWords = [
  'the', 'session', 'context', 'compaction', 'summary', 'branch', 'parser', 'test', 'fails', 'because', 'of',
  'a', 'missing', 'tool', 'result', 'we', 'should', 'check', 'whether', 'entry', 'parent', 'leaf', 'path',
  'token', 'budget', 'keeps', 'recent', 'messages', 'and', 'drops', 'older', 'ones', 'then', 'run', 'again',
  'with', 'strict', 'mode', 'error', 'line', 'number', 'file', 'module', 'export', 'import', 'function',
  'returns', 'undefined', 'when', 'input', 'is', 'empty', 'so', 'I', 'will', 'fix', 'it', 'now', 'looks',
  'good', 'let', 'me', 'read', 'that', 'first', 'store', 'stream', 'revision', 'append', 'event', 'position',
] as const; // prettier-ignore

const codeLines = [
  'export function buildIndex(entries: readonly Entry[]): Map<string, Entry> {',
  '  const index = new Map<string, Entry>();',
  '  for (const entry of entries) index.set(entry.id, entry);',
  '  return index;',
  '}',
  "import { describe, expect, it } from '@jest/globals';",
  '  if (leaf === undefined) throw new Error(`unknown leaf ${leafId}`);',
  '    const tokens = estimateTokens(message);',
  '  // keep the tool call next to its result',
  'interface CompactionResult { summary: string; firstKeptEntryId: string; tokensBefore: number }',
  '      expect(context.messages).toHaveLength(446);',
  '  private readonly statements = new Map<string, Statement>();',
  "const path = require('node:path');",
  '    at Object.<anonymous> (src/session/session-manager.ts:412:17)',
  'PASS  test/session.spec.ts (4.211 s)',
  'FAIL  test/compaction.spec.ts',
  '  ● prepareCompaction › keeps the turn prefix',
  '    Expected: 3',
  '    Received: 2',
  'Tests:       1 failed, 57 passed, 58 total',
  '{ "type": "message", "id": "a1b2c3d4", "parentId": "9f8e7d6c" }',
  '  return { ...state, leaf: event.data.entryId };',
  'SELECT global_position, stream_id FROM events WHERE stream_id = ? ORDER BY stream_revision;',
] as const;

function buildCorpus(random: SeededRandom, length: number, piece: () => string): string {
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    const part = piece();
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

/** Prose and code corpora plus helpers that cut texts of a requested length out of them. */
export class TextSource {
  private readonly prose: string;
  private readonly code: string;

  constructor(private readonly random: SeededRandom) {
    this.prose = buildCorpus(random, 256 * 1024, () => {
      const words = Array.from({ length: random.integer(6, 22) }, () => random.pick(proseWords));
      const sentence = words.join(' ');
      return `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.${random.chance(0.15) ? '\n\n' : ' '}`;
    });
    this.code = buildCorpus(random, 256 * 1024, () => `${random.pick(codeLines)}\n`);
  }

  proseOf(length: number): string {
    return cut(this.prose, this.random, length);
  }

  codeOf(length: number): string {
    return cut(this.code, this.random, length);
  }

  /** A tool output length: mostly short, sometimes long, rarely very long. */
  outputLength(): number {
    const draw = this.random.next();
    if (draw < 0.6) return this.random.integer(80, 1200);
    if (draw < 0.9) return this.random.integer(1200, 4000);
    if (draw < 0.98) return this.random.integer(4000, 12000);
    return this.random.integer(12000, 40000);
  }
}

function cut(corpus: string, random: SeededRandom, length: number): string {
  const size = Math.min(length, corpus.length);
  const start = random.integer(0, corpus.length - size);
  return corpus.slice(start, start + size);
}
