// Finds things that look like file paths in free text, for the offline summariser. Deliberately
// conservative: a token counts when it has a slash and a file extension, starts like a path
// (`/`, `./`, `../`, `~/`), or is a bare file name with a well-known extension.

const knownExtensions = new Set(
  (
    'ts tsx mts cts js jsx mjs cjs json jsonl json5 md mdx txt rst yaml yml toml ini cfg conf env lock ' +
    'py pyi rb go rs java kt kts swift c h cc cpp cxx hpp cs fs php sh bash zsh fish ps1 bat sql ' +
    'css scss sass less html htm xml svg png jpg jpeg gif webp ico pdf csv tsv log proto graphql gql ' +
    'vue svelte astro gradle properties tf hcl lua pl r m mm scala ex exs erl hs ml clj dart zig nim ' +
    'vim el patch diff gz zip tar tgz wasm map snap db sqlite ipynb'
  ).split(' '),
);

/** Dotted words that are code or product names, not files (`console.log`, `Node.js`). */
const notFileStems = new Set(
  (
    'console json object math process path fs array promise string number date module exports window ' +
    'document this self node next vue react express nuxt three chart d3 e i vs etc'
  ).split(' '),
);

const tokenSeparators = /[\s`'"(){}[\]<>,;|*]+/;
const pathCharacters = /^[\w./@+~-]+$/;
const fileNameWithExtension = /^[\w@+-][\w.@+-]*\.([A-Za-z][A-Za-z0-9]{0,9})$/;
const pathLikeStart = /^(?:\/|\.\.?\/|~\/)[\w@.+-]/;

function cleanToken(token: string): string {
  return token.replace(/[.:;,!?]+$/, '').replace(/:\d+(?::\d+)?$/, '');
}

/** True when `token` (already stripped of surrounding punctuation) looks like a file path. */
export function looksLikeFilePath(token: string): boolean {
  if (token.length < 3 || token.length > 300 || token.includes('://') || !pathCharacters.test(token))
    return false;
  const lastSegment = token.split('/').at(-1) ?? '';
  const extension = fileNameWithExtension.exec(lastSegment)?.[1]?.toLowerCase();
  if (token.includes('/')) return extension !== undefined || pathLikeStart.test(token);
  if (extension === undefined || !knownExtensions.has(extension)) return false;
  const stem = lastSegment.split('.')[0]?.toLowerCase() ?? '';
  return !notFileStems.has(stem);
}

/** The file-like paths in `text`, in order of first appearance, without repeats. */
export function filePathsIn(text: string): string[] {
  const found = new Set<string>();
  for (const raw of text.split(tokenSeparators)) {
    const token = cleanToken(raw);
    if (looksLikeFilePath(token)) found.add(token);
  }
  return [...found];
}
