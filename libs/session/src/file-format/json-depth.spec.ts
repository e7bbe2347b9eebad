import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth';
import { parseSessionFile } from './parse-session-file';
import { SessionFileError } from './session-file-error';

function nestedArrays(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level += 1) value = [value];
  return value;
}

const header = '{"type":"session","version":3,"id":"deep","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
const entry = (id: string, data: string) =>
  `{"type":"custom","id":"${id}","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","customType":"x","data":${data}}`;

describe('exceedsJsonDepth', () => {
  it('counts a scalar as level 0 and each array or object as one more level', () => {
    expect(exceedsJsonDepth('text', 0)).toBe(false);
    expect(exceedsJsonDepth([], 0)).toBe(true);
    expect(exceedsJsonDepth({ a: [1] }, 2)).toBe(false);
    expect(exceedsJsonDepth({ a: [{}] }, 2)).toBe(true);
  });

  it('accepts MAX_JSON_DEPTH levels and refuses one more, without overflowing at any depth', () => {
    expect(exceedsJsonDepth(nestedArrays(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nestedArrays(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(JSON.parse('['.repeat(200_000) + ']'.repeat(200_000)))).toBe(true);
  });
});

describe('parseSessionFile given a line nested deeper than MAX_JSON_DEPTH', () => {
  // Entry data 511 levels deep sits at depth 512 in the line; one more level is refused.
  const accepted = entry('a', JSON.stringify(nestedArrays(MAX_JSON_DEPTH - 1)));
  const refused = entry('b', '['.repeat(100_000) + ']'.repeat(100_000));

  it('strict mode refuses the file at that line as bad JSON', () => {
    const text = [header, accepted, refused].join('\n');
    expect(() => parseSessionFile(text, { mode: 'strict' })).toThrow(SessionFileError);
    expect(() => parseSessionFile(text, { mode: 'strict' })).toThrow(
      `Session file line 3: JSON nested deeper than ${MAX_JSON_DEPTH} levels (bad-json)`,
    );
  });

  it('lenient mode skips that line and keeps the others', () => {
    const parsed = parseSessionFile([header, refused, accepted].join('\n'), { mode: 'lenient' });
    expect(parsed.entries.map((kept) => kept.id)).toEqual(['a']);
    expect(parsed.skipped).toEqual([
      { line: 2, code: 'bad-json', reason: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  });
});
