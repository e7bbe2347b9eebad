// Sample transcripts of Claude Code and Codex CLI, written for Strata's tests from the formats'
// public descriptions (see docs/compatibility.md, "Claude Code and Codex transcripts"): tool
// calls, parallel calls, errors, thinking, a sidechain, a compaction, model changes, unknown lines.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const transcriptSampleNames = [
  'claude-code-tools.jsonl',
  'claude-code-compaction.jsonl',
  'codex-rollout.jsonl',
  'codex-legacy-rollout.jsonl',
] as const;
export type TranscriptSampleName = (typeof transcriptSampleNames)[number];

export function transcriptSamplePath(name: TranscriptSampleName): string {
  return path.join(__dirname, 'transcripts', name);
}

/** The sample's bytes, exactly as stored. */
export function readTranscriptSample(name: TranscriptSampleName): Buffer {
  return fs.readFileSync(transcriptSamplePath(name));
}
