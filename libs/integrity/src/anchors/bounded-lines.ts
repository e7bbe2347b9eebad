// Reading JSON Lines from a file or stream of any size: one line at a time, each at most a given
// number of bytes (a longer line is refused by its number, not buffered), decoded as strict
// UTF-8. Empty lines (and a final line break) are skipped; `\r\n` endings are accepted.
import { createReadStream } from 'node:fs';

export interface NumberedLine {
  /** 1-based. */
  readonly line: number;
  readonly text: string;
}

/** A line that cannot be read: too long, or not UTF-8. */
export class LineReadError extends Error {
  override readonly name = 'LineReadError';

  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function decode(parts: readonly Buffer[], line: number): string {
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw new LineReadError(line, 'it is not UTF-8');
  }
  return text.endsWith('\r') ? text.slice(0, -1) : text;
}

/** The non-empty lines of `chunks`; throws `LineReadError`. */
export async function* boundedLines(
  chunks: AsyncIterable<Buffer | string>,
  maxLineBytes: number,
): AsyncGenerator<NumberedLine> {
  let parts: Buffer[] = [];
  let length = 0;
  let line = 1;
  for await (const chunk of chunks) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let start = 0;
    for (let end = buffer.indexOf(10, start); end !== -1; end = buffer.indexOf(10, start)) {
      if (length + (end - start) > maxLineBytes)
        throw new LineReadError(line, `it is longer than ${maxLineBytes} bytes`);
      parts.push(buffer.subarray(start, end));
      const text = decode(parts, line);
      if (text.trim() !== '') yield { line, text };
      parts = [];
      length = 0;
      line += 1;
      start = end + 1;
    }
    const rest = buffer.subarray(start);
    length += rest.length;
    if (length > maxLineBytes) throw new LineReadError(line, `it is longer than ${maxLineBytes} bytes`);
    if (rest.length > 0) parts.push(rest);
  }
  if (parts.length > 0) {
    const text = decode(parts, line);
    if (text.trim() !== '') yield { line, text };
  }
}

/** The non-empty lines of a file, read in 64 KiB chunks. */
export function fileLines(path: string, maxLineBytes: number): AsyncGenerator<NumberedLine> {
  return boundedLines(createReadStream(path, { highWaterMark: 64 * 1024 }), maxLineBytes);
}
