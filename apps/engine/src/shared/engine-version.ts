// The engine's version: the `version` of the repository's package.json (the build points the
// require back at that file, so the compiled engine reads the same one).

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const ENGINE_VERSION = (require('../../../../package.json') as { version: string }).version;
