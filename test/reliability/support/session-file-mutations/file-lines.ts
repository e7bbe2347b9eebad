// The lines of a session file as the mutations see them (strings, or raw bytes where a line is
// not UTF-8), and the small edits they share: read a line as a JSON object, pick an entry line
// from a fraction, insert a line, replace an entry with a changed copy.
import fc from 'fast-check';

/** One line of a file, without its newline. */
export type FileLine = string | Uint8Array;

export type JsonRecord = Record<string, unknown>;

export function parsedLine(line: FileLine | undefined): JsonRecord | undefined {
  if (typeof line !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as JsonRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Index in `lines` (1 … length) of an entry line, from a fraction in [0, 1). */
export function entryIndex(lines: readonly FileLine[], fraction: number): number {
  const entries = Math.max(1, lines.length - 1);
  return 1 + Math.min(entries - 1, Math.floor(fraction * entries));
}

export function insertAt(lines: FileLine[], fraction: number, line: FileLine): void {
  lines.splice(1 + Math.floor(fraction * lines.length), 0, line);
}

/** JSON text, or undefined when an earlier mutation nested the value too deep to write. */
export function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

export function replaceEntry(
  lines: FileLine[],
  fraction: number,
  change: (entry: JsonRecord) => unknown,
): void {
  const index = entryIndex(lines, fraction);
  const entry = parsedLine(lines[index]);
  if (entry === undefined) return;
  lines[index] = jsonText(change(entry)) ?? lines[index] ?? '';
}

// Integers spread positions evenly (a generated double clusters near 0 and 1).
export const fraction = fc.integer({ min: 0, max: 9_999 }).map((value) => value / 10_000);
