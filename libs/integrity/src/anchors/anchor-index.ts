// The anchors a verification must match, indexed by stream and revision in a private temporary
// SQLite database on disk (deleted when closed), so that an anchor file or log of any length is
// read once, as a stream, and never held in memory. Each anchor's signature is checked as it
// is read: an anchor no given key signed is refused (and named), never used.
import Database from 'better-sqlite3';
import { z } from 'zod';
import {
  anchorSchema,
  checkAnchorSignature,
  type Anchor,
  type AnchorPublicKey,
  type AnchorSignatureCheck,
} from './anchor';
import type { AnchorLog, AnchorQuery } from './anchor-log';
import { fileLines, LineReadError } from './bounded-lines';

/** One anchor to index, or a line that held none; `origin` names where it came from. */
export type AnchorCandidate =
  | { readonly origin: string; readonly anchor: Anchor; readonly trusted?: never }
  /** A head a signed log entry attests (a checkpoint's), its entry's signature already checked. */
  | { readonly origin: string; readonly anchor: Anchor; readonly trusted: true }
  | { readonly origin: string; readonly invalid: string };

/** An anchor and where it was read. */
export interface AnchorReference {
  readonly origin: string;
  readonly anchor: Anchor;
}

export type AnchorRefusal = Exclude<AnchorSignatureCheck, 'valid'> | 'invalid';

export interface RefusedAnchor {
  readonly origin: string;
  readonly reason: AnchorRefusal;
  /** What the line said, when it could be read as an anchor. */
  readonly anchor?: Anchor;
  readonly detail?: string;
}

/** The longest anchor line read (an anchor is about 300 bytes). */
export const MAX_ANCHOR_LINE_BYTES = 4096;

/** The refused anchors named in a report; the others are counted. */
export const REFUSED_ANCHORS_NAMED = 20;

interface AnchorRow {
  readonly origin: string;
  readonly stream: string;
  readonly revision: bigint;
  readonly head_hash: string;
  readonly time: string;
  readonly key_id: string;
  readonly signature: string;
  /** The chained anchor's log fields (`kind`, `position`, `previousHash`, `hash`) as JSON, when it has them. */
  readonly chain: string | null;
}

function anchorOfRow(row: AnchorRow): AnchorReference {
  const chain = row.chain === null ? {} : (JSON.parse(row.chain) as Partial<Anchor>);
  return {
    origin: row.origin,
    anchor: {
      stream: row.stream,
      revision: row.revision.toString(),
      headHash: row.head_hash,
      time: row.time,
      keyId: row.key_id,
      signature: row.signature,
      ...chain,
    },
  };
}

/** The fields a chained anchor adds, as the index keeps them. */
function chainFieldsOf(anchor: Anchor): string | null {
  if (anchor.previousHash === undefined) return null;
  const { kind, position, previousHash, hash } = anchor;
  return JSON.stringify({ kind, position, previousHash, hash });
}

const SCHEMA = `
CREATE TABLE anchors (
  origin TEXT NOT NULL, stream TEXT NOT NULL, revision INTEGER NOT NULL, head_hash TEXT NOT NULL,
  time TEXT NOT NULL, key_id TEXT NOT NULL, signature TEXT NOT NULL, chain TEXT
);
CREATE INDEX anchors_at ON anchors (stream, revision);
CREATE TABLE refused (seq INTEGER PRIMARY KEY, stream TEXT, origin TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT, anchor TEXT);
`;

const storedAnchorSchema = anchorSchema;

export class AnchorIndex {
  private readonly database = new Database('');
  private readonly streamsWithAnchors = new Set<string>();
  private readonly insertAnchor;
  private readonly insertRefused;
  private readonly selectAt;
  private readonly selectAfter;

  private constructor(private readonly keys: ReadonlyMap<string, AnchorPublicKey>) {
    this.database.defaultSafeIntegers(true);
    this.database.pragma('journal_mode = OFF');
    this.database.pragma('synchronous = OFF');
    this.database.pragma('cache_size = -8192');
    this.database.exec(SCHEMA);
    this.insertAnchor = this.database.prepare(
      'INSERT INTO anchors (origin, stream, revision, head_hash, time, key_id, signature, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertRefused = this.database.prepare(
      'INSERT INTO refused (stream, origin, reason, detail, anchor) VALUES (?, ?, ?, ?, ?)',
    );
    this.selectAt = this.database.prepare<[string, bigint], AnchorRow>(
      'SELECT * FROM anchors WHERE stream = ? AND revision = ? ORDER BY rowid',
    );
    this.selectAfter = this.database.prepare<[string, bigint], AnchorRow>(
      'SELECT * FROM anchors WHERE stream = ? AND revision > ? ORDER BY revision, rowid',
    );
  }

  /**
   * Reads every candidate once, checking each signature against `keys`; anchors of streams
   * `inScope` refuses are left out. Inserts are batched in transactions of 1,000.
   */
  static async build(
    candidates: AsyncIterable<AnchorCandidate>,
    keys: ReadonlyMap<string, AnchorPublicKey>,
    inScope: (streamId: string) => boolean = () => true,
  ): Promise<AnchorIndex> {
    const index = new AnchorIndex(keys);
    try {
      let batch: AnchorCandidate[] = [];
      const write = index.database.transaction((items: readonly AnchorCandidate[]) => {
        for (const item of items) index.add(item, inScope);
      });
      for await (const candidate of candidates) {
        batch.push(candidate);
        if (batch.length >= 1000) {
          write(batch);
          batch = [];
        }
      }
      write(batch);
      return index;
    } catch (error) {
      index.close();
      throw error;
    }
  }

  /** The streams that have an anchor in the index. */
  streams(): ReadonlySet<string> {
    return this.streamsWithAnchors;
  }

  hasAnchors(streamId: string): boolean {
    return this.streamsWithAnchors.has(streamId);
  }

  /** The anchors of a stream at one revision. */
  at(streamId: string, revision: bigint): AnchorReference[] {
    return this.selectAt.all(streamId, revision).map(anchorOfRow);
  }

  /** The anchors of a stream above a revision (all of them for null), lowest first, one at a time. */
  *after(streamId: string, revision: bigint | null): Generator<AnchorReference> {
    for (const row of this.selectAfter.iterate(streamId, revision ?? -1n)) yield anchorOfRow(row);
  }

  /** The anchors refused, of the streams `inScope` selects (and every line that named none). */
  refused(inScope: (streamId: string) => boolean): { named: RefusedAnchor[]; total: number } {
    const named: RefusedAnchor[] = [];
    let total = 0;
    const rows = this.database
      .prepare<
        [],
        {
          stream: string | null;
          origin: string;
          reason: AnchorRefusal;
          detail: string | null;
          anchor: string | null;
        }
      >('SELECT stream, origin, reason, detail, anchor FROM refused ORDER BY seq')
      .iterate();
    for (const row of rows) {
      if (row.stream !== null && !inScope(row.stream)) continue;
      total += 1;
      if (named.length >= REFUSED_ANCHORS_NAMED) continue;
      const anchor = row.anchor === null ? undefined : storedAnchorSchema.parse(JSON.parse(row.anchor));
      named.push({
        origin: row.origin,
        reason: row.reason,
        ...(anchor !== undefined ? { anchor } : {}),
        ...(row.detail !== null ? { detail: row.detail } : {}),
      });
    }
    return { named, total };
  }

  close(): void {
    if (this.database.open) this.database.close();
  }

  private add(candidate: AnchorCandidate, inScope: (streamId: string) => boolean): void {
    if ('invalid' in candidate) {
      this.insertRefused.run(null, candidate.origin, 'invalid', candidate.invalid, null);
      return;
    }
    const { anchor, origin } = candidate;
    if (!inScope(anchor.stream)) return;
    const check = candidate.trusted === true ? 'valid' : checkAnchorSignature(anchor, this.keys);
    if (check !== 'valid') {
      this.insertRefused.run(anchor.stream, origin, check, null, JSON.stringify(anchor));
      return;
    }
    this.streamsWithAnchors.add(anchor.stream);
    this.insertAnchor.run(
      origin,
      anchor.stream,
      BigInt(anchor.revision),
      anchor.headHash,
      anchor.time,
      anchor.keyId,
      anchor.signature,
      chainFieldsOf(anchor),
    );
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(line)'}: ${issue.message}`)
    .join('; ');
}

/** The anchors of a JSON Lines file, each named `<label>:<line>`; a bad line is a candidate too. */
export async function* anchorFileCandidates(path: string, label: string): AsyncGenerator<AnchorCandidate> {
  try {
    for await (const { line, text } of fileLines(path, MAX_ANCHOR_LINE_BYTES)) {
      const origin = `${label}:${line}`;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        yield { origin, invalid: 'it is not JSON' };
        continue;
      }
      const parsed = anchorSchema.safeParse(value);
      yield parsed.success
        ? { origin, anchor: parsed.data }
        : { origin, invalid: describeIssues(parsed.error) };
    }
  } catch (error) {
    if (error instanceof LineReadError) {
      yield { origin: `${label}:${error.line}`, invalid: error.reason };
      return;
    }
    throw error;
  }
}

/** The anchors of a store's log, named `anchor log #<n>` in log order. */
export async function* anchorLogCandidates(
  log: AnchorLog,
  query: AnchorQuery = {},
): AsyncGenerator<AnchorCandidate> {
  let count = 0;
  for await (const anchor of log.read(query)) {
    count += 1;
    yield { origin: `anchor log #${count}`, anchor };
  }
}
