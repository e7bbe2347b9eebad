import { parseSessionFile } from './parse-session-file';
import { SessionFileError } from './session-file-error';
import { utf8Lines } from './utf8-lines';

const encoder = new TextEncoder();
const header =
  '{"type":"session","version":3,"id":"bytes","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
const entry = (id: string, text: string) =>
  `{"type":"custom","id":"${id}","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","customType":"x","data":"${text}"}`;

function bytesOf(...parts: (string | readonly number[])[]): Uint8Array {
  const chunks = parts.map((part) =>
    typeof part === 'string' ? encoder.encode(part) : Uint8Array.from(part),
  );
  const bytes = new Uint8Array(chunks.reduce((total, chunk) => total + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

describe('utf8Lines', () => {
  it('splits at newlines like String.split and decodes each line, multi-byte characters included', () => {
    expect(utf8Lines(encoder.encode('añ\n€\n'))).toEqual([
      { kind: 'text', text: 'añ' },
      { kind: 'text', text: '€' },
      { kind: 'text', text: '' },
    ]);
  });

  it('marks a line holding a byte sequence that is not UTF-8, and only that line', () => {
    expect(
      utf8Lines(bytesOf('ok\n', 'x', [0xff], 'y\n', [0xed, 0xa0, 0x80], '\nok')).map((line) => line.kind),
    ).toEqual(['text', 'invalid', 'invalid', 'text']);
  });
});

describe('parseSessionFile given bytes with a line that is not UTF-8', () => {
  // The same line decoded as text would be read with U+FFFD in place of the byte.
  const file = bytesOf(
    header,
    '\n',
    entry('a', 'caf').slice(0, -2),
    [0xe9],
    '"}\n',
    entry('b', 'fine'),
    '\n',
  );

  it('strict mode refuses the file at that line (invalid-utf8) instead of altering the text', () => {
    expect(() => parseSessionFile(file, { mode: 'strict' })).toThrow(SessionFileError);
    expect(() => parseSessionFile(file, { mode: 'strict' })).toThrow(
      'Session file line 2: the line is not UTF-8 text (invalid-utf8)',
    );
  });

  it('lenient mode skips that line and reports it', () => {
    const parsed = parseSessionFile(file, { mode: 'lenient' });
    expect(parsed.entries.map((kept) => kept.id)).toEqual(['b']);
    expect(parsed.skipped).toEqual([{ line: 2, code: 'invalid-utf8', reason: 'the line is not UTF-8 text' }]);
  });

  it('reads valid UTF-8 bytes exactly as the decoded text', () => {
    const text = `${header}\n${entry('a', 'café ✓')}\n`;
    expect(parseSessionFile(encoder.encode(text), { mode: 'strict' })).toEqual(
      parseSessionFile(text, { mode: 'strict' }),
    );
  });
});
