// The references between entries of an imported file, checked before anything is decided: a
// parent must be an earlier entry, a label must name one, and a compaction's first kept entry
// must be on the compaction's path. Strict imports stop at the first broken reference, naming
// its line; lenient imports keep an orphan as a root (the context pi builds from it is the
// same: its path ends at the orphan either way) and leave out a label whose target is missing
// and a compaction that keeps from elsewhere, reporting each line.
import {
  EntryPaths,
  type SessionEntry,
  type SessionFileContent,
  type SessionFileProblem,
} from '@strata/session';
import { SessionImportError } from './session-store-errors';

/**
 * The 1-based line of each entry: the non-blank lines of the file that were not skipped, after
 * the header. Exact because a parse keeps every other line as an entry, in file order.
 */
export function entryLineNumbers(
  content: SessionFileContent,
  skipped: readonly SessionFileProblem[],
): number[] {
  const skippedLines = new Set(skipped.map((problem) => problem.line));
  const lines: number[] = [];
  // Lossy decoding keeps every newline where it was, so the line numbers are those of the bytes.
  const text = typeof content === 'string' ? content : Buffer.from(content).toString('utf8');
  text.split('\n').forEach((content, index) => {
    if (content.trim() !== '' && !skippedLines.has(index + 1)) lines.push(index + 1);
  });
  return lines.slice(1);
}

export interface CheckedEntries {
  readonly entries: readonly SessionEntry[];
  /** The 1-based line of each kept entry. */
  readonly entryLines: readonly number[];
  /** Lines left out (lenient only). */
  readonly skipped: readonly SessionFileProblem[];
  /** Lines kept with a change (lenient only): orphans imported as roots. */
  readonly repaired: readonly SessionFileProblem[];
}

export function checkEntryReferences(
  entries: readonly SessionEntry[],
  lines: readonly number[],
  lenient: boolean,
): CheckedEntries {
  const paths = EntryPaths.empty();
  const kept: SessionEntry[] = [];
  const keptLines: number[] = [];
  const skipped: SessionFileProblem[] = [];
  const repaired: SessionFileProblem[] = [];
  entries.forEach((entry, index) => {
    const line = lines[index] ?? 0;
    if (entry.type === 'label' && !paths.has(entry.targetId)) {
      const reason = `label ${entry.id} names ${entry.targetId}, which is not an earlier entry`;
      if (!lenient) throw new SessionImportError(line, 'invalid-reference', reason);
      skipped.push({ line, code: 'invalid-reference', reason });
      return;
    }
    let imported = entry;
    if (entry.parentId !== null && !paths.has(entry.parentId)) {
      const reason = `parent ${entry.parentId} of entry ${entry.id} is not an earlier entry`;
      if (!lenient) throw new SessionImportError(line, 'invalid-reference', reason);
      repaired.push({ line, code: 'invalid-reference', reason: `${reason}; imported as a root` });
      imported = { ...entry, parentId: null };
    }
    if (
      imported.type === 'compaction' &&
      (imported.parentId === null || !paths.isOnPathTo(imported.firstKeptEntryId, imported.parentId))
    ) {
      const reason = `compaction ${imported.id} keeps from ${imported.firstKeptEntryId}, which is not an earlier entry on its path`;
      if (!lenient) throw new SessionImportError(line, 'invalid-reference', reason);
      skipped.push({ line, code: 'invalid-reference', reason });
      return;
    }
    kept.push(imported);
    keptLines.push(line);
    paths.add(imported);
  });
  return { entries: kept, entryLines: keptLines, skipped, repaired };
}
