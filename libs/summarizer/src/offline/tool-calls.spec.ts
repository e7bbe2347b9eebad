import { parseToolCalls } from './tool-calls';

describe('a tool-calls line', () => {
  it('yields each call with its JSON arguments', () => {
    expect(parseToolCalls('read(path="src/a.ts", offset=10); bash(command="ls -la")')).toEqual([
      { name: 'read', arguments: { path: 'src/a.ts', offset: 10 } },
      { name: 'bash', arguments: { command: 'ls -la' } },
    ]);
  });

  it('keeps strings holding separators, quotes and parentheses intact', () => {
    const line =
      'edit(path="x.ts", oldText="f(a, b); g(\\"c\\")", edits=[{"a":"); x("}]); write(path="y.md", content="ok")';
    expect(parseToolCalls(line)).toEqual([
      { name: 'edit', arguments: { path: 'x.ts', oldText: 'f(a, b); g("c")', edits: [{ a: '); x(' }] } },
      { name: 'write', arguments: { path: 'y.md', content: 'ok' } },
    ]);
  });

  it('skips arguments whose value is not JSON and calls without arguments', () => {
    expect(parseToolCalls('ping(); read(path=undefined, limit=5)')).toEqual([
      { name: 'ping', arguments: {} },
      { name: 'read', arguments: { limit: 5 } },
    ]);
  });
});
