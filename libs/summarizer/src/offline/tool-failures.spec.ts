import { failureLines, isDiagnosticLine } from './tool-failures';

describe('a line of tool output', () => {
  it.each([
    "src/a.ts(3,4): error TS2304: Cannot find name 'join'.",
    'npm ERR! code ELIFECYCLE',
    "TypeError: Cannot read properties of undefined (reading 'token')",
    'Tests: 1 failed, 3 passed',
    'FAIL src/auth/login.spec.ts',
    "ENOENT: no such file or directory, open 'x'",
    'error  no-unused-vars  src/auth/session.ts',
  ])('%s reports a failure', (line) => {
    expect(isDiagnosticLine(line)).toBe(true);
  });

  it.each([
    'errors.ts',
    '└── redis-errors@1.2.0',
    '1307:\tshowError(errorMessage: string): void {',
    'Found 0 errors. Watching for file changes.',
    'no errors',
    '216 │ \t * @throws Error if no model selected',
    'src/errors/index.ts',
  ])('%s does not', (line) => {
    expect(isDiagnosticLine(line)).toBe(false);
  });
});

describe('the failure lines of a tool result', () => {
  it("are pi's own failure messages, whatever the tool", () => {
    const edit =
      'Could not find the exact text in src/a.ts. The old text must match exactly including all whitespace and newlines.';
    expect(failureLines('edit', undefined, edit)).toEqual([edit]);
    expect(failureLines('bash', 'npm run check', 'Command aborted')).toEqual(['Command aborted']);
    expect(failureLines('bash', 'node x.js', 'boom\n\nCommand exited with code 1')).toEqual([
      'Command exited with code 1',
    ]);
  });

  it('are a few diagnostic lines, then the exit line, for a command that does more than list', () => {
    const output = [
      '> check',
      'a.ts(1,1): error TS1: one',
      'b.ts(1,1): error TS2: two',
      'c.ts: error TS3',
      'd.ts: error TS4',
      '',
      'Command exited with code 2',
    ].join('\n');
    expect(failureLines('bash', 'npm run check', output)).toEqual([
      'a.ts(1,1): error TS1: one',
      'b.ts(1,1): error TS2: two',
      'c.ts: error TS3',
      'Command exited with code 2',
    ]);
  });

  it('are none for listings, unless the shell complains', () => {
    expect(failureLines('bash', 'ls src/errors', 'errors.ts\nindex.ts')).toEqual([]);
    expect(failureLines('read', undefined, 'throw new Error("x");')).toEqual([]);
    expect(failureLines('bash', 'grep -n x a.ts', '(no output)\n\nCommand exited with code 1')).toEqual([]);
    expect(
      failureLines(
        'bash',
        'ls missing',
        'ls: missing: No such file or directory\n\nCommand exited with code 1',
      ),
    ).toEqual(['ls: missing: No such file or directory', 'Command exited with code 1']);
  });
});
