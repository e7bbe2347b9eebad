// The one rule for every id a client can choose and the API must address again: session ids,
// entry ids and every reference to an entry, attempt ids. An id travels in JSON bodies, URL
// path segments and query strings, SQLite text and stream names, so the rule keeps out what
// one of them cannot carry unchanged: control characters (NUL, line breaks, tabs), the line and
// paragraph separators, unpaired surrogates (no UTF-8, so no URL or stored text, can hold them),
// the dot segments `.` and `..` (clients resolve them away before a request is sent), and more
// than 512 UTF-16 code units. Everything else (any script, spaces, `/`, `%`, `?`, `#`, `+`) is
// legal and round-trips through percent-encoding.
import { z } from 'zod';

export const MAX_IDENTIFIER_LENGTH = 512;

/** No control character, separator or unpaired surrogate, and not a dot segment. */
const identifierPattern = /^(?!\.{1,2}$)[^\p{Cc}\p{Cs}\u2028\u2029]*$/u;

export const IDENTIFIER_RULE =
  `1 to ${MAX_IDENTIFIER_LENGTH} characters (UTF-16 code units), no control characters, ` +
  'no line or paragraph separators, no unpaired surrogates, and not "." or ".."';

export const identifierSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(MAX_IDENTIFIER_LENGTH, `must be at most ${MAX_IDENTIFIER_LENGTH} characters long`)
  .regex(
    identifierPattern,
    'must not contain control characters, line or paragraph separators or unpaired surrogates, ' +
      'and must not be "." or ".."',
  )
  .describe(`an id: ${IDENTIFIER_RULE}`);

export function isIdentifier(text: string): boolean {
  return text.length > 0 && text.length <= MAX_IDENTIFIER_LENGTH && identifierPattern.test(text);
}

/** Why `text` is not an id, or undefined when it is one. */
export function identifierProblem(text: string): string | undefined {
  if (isIdentifier(text)) return undefined;
  const result = identifierSchema.safeParse(text);
  return result.success ? 'is not a valid id' : (result.error.issues[0]?.message ?? 'is not a valid id');
}
