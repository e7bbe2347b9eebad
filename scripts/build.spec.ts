// The build into dist/ and its stale rule (issue 27 item 2), on a small repository of its own in a
// temporary folder: the @strata aliases rewritten, a build never run stale (a changed, added or
// removed source is named and rebuilt by the program's start, in one line on stderr), and a build
// that fails stops the program with one line and exit code 1.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

interface BuildScript {
  build(root: string): { files: number };
}
interface BuildSources {
  staleReason(root: string): string | undefined;
  listSources(root: string): string[];
}

/* eslint-disable @typescript-eslint/no-require-imports -- the build scripts are CommonJS without types */
const { build } = require('./build.js') as BuildScript;
const { staleReason, listSources } = require('./build-sources.js') as BuildSources;
/* eslint-enable @typescript-eslint/no-require-imports */

const runBuiltScript = join(__dirname, 'run-built.js');

let root: string;

function write(relativePath: string, text: string): void {
  const file = join(root, relativePath);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

/** Dates a file a minute back, as a checkout made before the build would. */
function ageFile(relativePath: string): void {
  const earlier = new Date(Date.now() - 60_000);
  utimesSync(join(root, relativePath), earlier, earlier);
}

/** Dates a file now, as an edit after the build (of files dated a minute back) would. */
function touchNow(relativePath: string): void {
  const now = new Date();
  utimesSync(join(root, relativePath), now, now);
}

/** `node -e runBuilt('apps/cli/src/main', 'demo', root)`: what bin/strata.js does for the repository. */
function runDemo(): { status: number | null; stdout: string; stderr: string } {
  const script = `require(${JSON.stringify(runBuiltScript)}).runBuilt('apps/cli/src/main', 'demo', ${JSON.stringify(root)})`;
  const result = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'strata-build-'));
  write('package.json', JSON.stringify({ name: 'demo', version: '1.2.3' }));
  write('libs/greeting/src/index.ts', "export * from './greeting';\n");
  write(
    'libs/greeting/src/greeting.ts',
    'export const greeting = (name: string): string => `hello ${name}`;\n',
  );
  write('libs/greeting/src/greeting.spec.ts', "it('is a spec', () => undefined);\n");
  write('libs/greeting/src/testing/helper.ts', 'export const helper = 1;\n');
  write('libs/testing/src/index.ts', 'export const fixture = 1;\n');
  write(
    'apps/cli/src/main.ts',
    [
      "import { greeting } from '@strata/greeting';",
      "const manifest = require('../../../package.json') as { version: string };",
      "process.stdout.write(`${greeting('world')} ${manifest.version}\\n`);",
      '',
    ].join('\n'),
  );
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

describe('a repository never built', () => {
  it('has no complete build', () => {
    expect(staleReason(root)).toBe('dist/ has no complete build');
  });

  it('builds every source but the specs and the testing code', () => {
    expect(listSources(root)).toEqual([
      'apps/cli/src/main.ts',
      'libs/greeting/src/greeting.ts',
      'libs/greeting/src/index.ts',
    ]);
  });

  it('is built on its first run, which says so in one line on stderr', () => {
    const result = runDemo();
    expect(result.stderr).toBe('demo: dist/ has no complete build; building dist/ again (npm run build)\n');
    expect(result.stdout).toBe('hello world 1.2.3\n');
    expect(result.status).toBe(0);
  });
});

describe('a repository just built', () => {
  beforeEach(() => {
    for (const file of [
      ...listSources(root),
      'libs/greeting/src/greeting.spec.ts',
      'libs/testing/src/index.ts',
    ]) {
      ageFile(file);
    }
    expect(build(root).files).toBe(3);
  });

  it('is up to date and runs without building', () => {
    expect(staleReason(root)).toBeUndefined();
    expect(runDemo()).toEqual({ status: 0, stdout: 'hello world 1.2.3\n', stderr: '' });
  });

  it('requires the libraries and the files left outside dist/ by relative paths', () => {
    const main = readFileSync(join(root, 'dist', 'apps', 'cli', 'src', 'main.js'), 'utf8');
    expect(main).toContain('require("../../../libs/greeting/src/index.js")');
    expect(main).toContain("require('../../../../package.json')");
    expect(main).not.toContain('@strata/');
    expect(existsSync(join(root, 'dist', 'libs', 'greeting', 'src', 'greeting.spec.js'))).toBe(false);
  });

  it('is stale once a source changes, and the next run builds it again and runs the change', () => {
    write(
      'libs/greeting/src/greeting.ts',
      'export const greeting = (name: string): string => `goodbye ${name}`;\n',
    );
    touchNow('libs/greeting/src/greeting.ts');
    expect(staleReason(root)).toBe('libs/greeting/src/greeting.ts changed after the last build');
    const result = runDemo();
    expect(result.stderr).toBe(
      'demo: libs/greeting/src/greeting.ts changed after the last build; building dist/ again (npm run build)\n',
    );
    expect(result.stdout).toBe('goodbye world 1.2.3\n');
    expect(staleReason(root)).toBeUndefined();
  });

  it('is stale once a source is added or removed', () => {
    write('libs/greeting/src/farewell.ts', 'export const farewell = 1;\n');
    expect(staleReason(root)).toMatch(
      /^libs\/greeting\/src\/farewell\.ts (changed after|is not in) the last build$/,
    );
    build(root);
    expect(staleReason(root)).toBeUndefined();
    rmSync(join(root, 'libs', 'greeting', 'src', 'farewell.ts'));
    expect(staleReason(root)).toBe('libs/greeting/src/farewell.ts was removed since the last build');
  });

  it('does not count a spec or a testing file as a source', () => {
    touchNow('libs/greeting/src/greeting.spec.ts');
    touchNow('libs/testing/src/index.ts');
    expect(staleReason(root)).toBeUndefined();
  });

  it('runs nothing when the new build fails, in one line with exit code 1', () => {
    write(
      'apps/cli/src/main.ts',
      "import { missing } from './not-there';\nprocess.stdout.write(String(missing));\n",
    );
    touchNow('apps/cli/src/main.ts');
    const result = runDemo();
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      'demo: apps/cli/src/main.ts changed after the last build; building dist/ again (npm run build)',
      'demo: the build failed, nothing was run: apps/cli/src/main.ts: requires ./not-there, which is neither built nor in the repository',
      '',
    ]);
  });

  it('names the source swc cannot read, in one line', () => {
    write('apps/cli/src/main.ts', 'const broken = ;\n');
    touchNow('apps/cli/src/main.ts');
    const result = runDemo();
    expect(result.status).toBe(1);
    expect(result.stderr.split('\n').slice(1)).toEqual([
      'demo: the build failed, nothing was run: apps/cli/src/main.ts: Expression expected',
      '',
    ]);
  });
});
