import fc from 'fast-check';
import { identifierProblem, identifierSchema, isIdentifier, MAX_IDENTIFIER_LENGTH } from './identifiers';

describe('the identifier rule', () => {
  it.each([
    ['pi entry ids', 'c8e7d3aa'],
    ['UUIDs', 'ffae836b-9420-4060-ac13-7745215f90ff'],
    ['path-like text', '../../etc/passwd'],
    ['URL-reserved characters', '/?#%&=+;,:@ []'],
    ['three dots', '...'],
    ['any script and emoji', 'séance-日本-😀'],
    ['a paired surrogate at the limit', '😀'.repeat(MAX_IDENTIFIER_LENGTH / 2)],
    ['512 characters', 'x'.repeat(MAX_IDENTIFIER_LENGTH)],
    ['a lone space', ' '],
  ])('accepts %s', (_what, id) => {
    expect(identifierProblem(id)).toBeUndefined();
    expect(isIdentifier(id)).toBe(true);
  });

  it.each([
    ['the empty string', '', 'must not be empty'],
    ['513 characters', 'x'.repeat(MAX_IDENTIFIER_LENGTH + 1), 'at most 512'],
    ['100 kB', 'y'.repeat(100_000), 'at most 512'],
    ['NUL', 'a\u0000b', 'control characters'],
    ['a line feed', 'a\nb', 'control characters'],
    ['a tab', '\t', 'control characters'],
    ['DEL', '\u007f', 'control characters'],
    ['a C1 control', 'a\u009fb', 'control characters'],
    ['a line separator', '\u2028', 'line or paragraph separators'],
    ['a paragraph separator', '\u2029', 'line or paragraph separators'],
    ['a lone high surrogate', 'a\ud83d', 'unpaired surrogates'],
    ['a lone low surrogate', '\ude00b', 'unpaired surrogates'],
    ['the dot segment "."', '.', 'must not be "." or ".."'],
    ['the dot segment ".."', '..', 'must not be "." or ".."'],
  ])('refuses %s, saying why', (_what, id, why) => {
    expect(identifierProblem(id)).toContain(why);
    expect(isIdentifier(id)).toBe(false);
  });

  it('accepts exactly the ids that survive percent-encoding and UTF-8 unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 20 }), (text) => {
        if (!isIdentifier(text)) return;
        expect(decodeURIComponent(encodeURIComponent(text))).toBe(text);
        expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text);
        expect(new URL(`http://host/sessions/${encodeURIComponent(text)}/tree`).pathname).toBe(
          `/sessions/${encodeURIComponent(text)}/tree`,
        );
      }),
      { numRuns: 2_000 },
    );
  });

  it('gives the same answer as its schema on any text', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 600 }), fc.constantFrom('.', '..', '...', '')),
        (text) => {
          expect(isIdentifier(text)).toBe(identifierSchema.safeParse(text).success);
          expect(identifierProblem(text) === undefined).toBe(isIdentifier(text));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('describes itself in the JSON Schema of the API (length and pattern)', () => {
    const schema = identifierSchema.toJSONSchema();
    expect(schema).toMatchObject({ type: 'string', minLength: 1, maxLength: MAX_IDENTIFIER_LENGTH });
    expect(schema.pattern).toEqual(expect.any(String));
  });
});
