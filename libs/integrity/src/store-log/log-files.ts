// An exported log (JSON Lines from `strata anchors export` or `GET /anchors`, or a witness file):
// each line a chained entry, or an anchor signed before the log was chained. Read as a stream of
// log items (to hold against the store's log) or as anchors to match (each line's signature
// checked, a checkpoint's heads handed on as the anchors it attests). A line that holds neither
// is a refused candidate naming its line. Lines may be a whole log or any part of it.
import { anchorSchema } from '../anchors/anchor';
import type { Anchor, AnchorPublicKey } from '../anchors/anchor';
import type { AnchorCandidate } from '../anchors/anchor-index';
import { fileLines, LineReadError } from '../anchors/bounded-lines';
import { LogCheck } from './log-check';
import { logEntrySchema, MAX_LOG_LINE_BYTES, type LogEntry } from './log-entry';
import type { LoggedItem } from './log-storage';

type FileLine =
  { readonly line: number; readonly item: LoggedItem } | { readonly line: number; readonly invalid: string };

function issueText(error: {
  readonly issues: readonly { readonly path: readonly PropertyKey[]; readonly message: string }[];
}): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || '(line)'}: ${issue.message}`)
    .join('; ');
}

function parseLine(line: number, text: string): FileLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { line, invalid: 'it is not JSON' };
  }
  const kind = (value as { readonly kind?: unknown } | null)?.kind;
  const previousHash = (value as { readonly previousHash?: unknown } | null)?.previousHash;
  if (kind !== undefined || previousHash !== undefined) {
    const parsed = logEntrySchema.safeParse(value);
    return parsed.success
      ? { line, item: { source: 'chained', entry: parsed.data as LogEntry } }
      : { line, invalid: issueText(parsed.error) };
  }
  const parsed = anchorSchema.safeParse(value);
  if (!parsed.success) return { line, invalid: issueText(parsed.error) };
  return {
    line,
    item: { source: 'legacy', entry: { ...parsed.data, position: parsed.data.position ?? '0' } },
  };
}

async function* fileItems(path: string): AsyncGenerator<FileLine> {
  try {
    for await (const { line, text } of fileLines(path, MAX_LOG_LINE_BYTES)) yield parseLine(line, text);
  } catch (error) {
    if (!(error instanceof LineReadError)) throw error;
    yield { line: error.line, invalid: error.reason };
  }
}

/** The log items of an exported file, in its order (lines that hold none are left out). */
export async function* logFileItems(path: string): AsyncGenerator<LoggedItem> {
  for await (const line of fileItems(path)) if ('item' in line) yield line.item;
}

/**
 * The anchors an exported file attests, each named `<label>:<line>`: its anchors, and the heads of
 * its checkpoints whose entries verify with `keys` (an entry that does not is refused, named).
 */
export async function* logFileCandidates(
  path: string,
  label: string,
  keys?: ReadonlyMap<string, AnchorPublicKey>,
): AsyncGenerator<AnchorCandidate> {
  const check = keys !== undefined ? new LogCheck(keys, label, false) : undefined;
  for await (const line of fileItems(path)) {
    const origin = `${label}:${line.line}`;
    if ('invalid' in line) {
      yield { origin, invalid: line.invalid };
      continue;
    }
    const { item } = line;
    if (item.source === 'chained' && item.entry.kind !== 'anchor') {
      if (check === undefined) continue;
      const before = check.findings.length;
      const attested = check.add(item);
      const refused = check.findings.slice(before).find((finding) => finding.kind === 'log_entry_refused');
      if (refused !== undefined) {
        yield { origin, invalid: `a ${item.entry.kind} entry refused: ${refused.reason}` };
        continue;
      }
      for (const candidate of attested) yield { ...candidate, origin };
      continue;
    }
    if (item.source === 'unreadable') continue;
    yield { origin, anchor: item.entry as Anchor };
  }
}
