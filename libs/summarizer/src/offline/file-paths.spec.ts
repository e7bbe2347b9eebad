import { filePathsIn, looksLikeFilePath } from './file-paths';

describe('file-path detection', () => {
  it.each([
    'src/auth/login.ts',
    './scripts/run.sh',
    '../shared/fixtures/pi/large-session.jsonl',
    '/etc/hosts',
    '~/notes/todo',
    'README.md',
    'package.json',
    'libs/@strata/x.test.ts',
  ])('accepts %j', (token) => {
    expect(looksLikeFilePath(token)).toBe(true);
  });

  it.each([
    'e.g',
    'i.e',
    'Node.js',
    'console.log',
    'JSON.parse',
    'and/or',
    'src/',
    'v1.2.3',
    'https://x.io/a.ts',
    'x',
  ])('rejects %j', (token) => {
    expect(looksLikeFilePath(token)).toBe(false);
  });

  it('finds paths in prose, stripping punctuation, quotes and line numbers', () => {
    const text = 'See `src/a.ts:12:3`, then (docs/b.md). Also "c.json"; not Node.js or e.g. this.';
    expect(filePathsIn(text)).toEqual(['src/a.ts', 'docs/b.md', 'c.json']);
  });
});
