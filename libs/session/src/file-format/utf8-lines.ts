// Splitting the bytes of a session file into UTF-8 lines. A file is read as bytes so that a line
// that is not UTF-8 is reported (and refused, or skipped when lenient) instead of being decoded
// with replacement characters and stored altered. The newline byte never occurs inside a UTF-8
// sequence, so splitting before decoding finds the same lines as splitting the text.

export type Utf8Line = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'invalid' };

const NEWLINE = 0x0a;
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeLine(bytes: Uint8Array): Utf8Line {
  try {
    return { kind: 'text', text: strictDecoder.decode(bytes) };
  } catch {
    return { kind: 'invalid' };
  }
}

/** The lines of `bytes` in order (a final newline leaves an empty last line, as `split` does). */
export function utf8Lines(bytes: Uint8Array): Utf8Line[] {
  const lines: Utf8Line[] = [];
  let start = 0;
  for (let index = bytes.indexOf(NEWLINE); index !== -1; index = bytes.indexOf(NEWLINE, start)) {
    lines.push(decodeLine(bytes.subarray(start, index)));
    start = index + 1;
  }
  lines.push(decodeLine(bytes.subarray(start)));
  return lines;
}
