// The two programs of the package run the build in dist/ (issue 27 item 2): `strata --help` and
// `strata --version`, and the engine that `npm start` serves, each as its own process. A probe
// preloaded into the process (NODE_OPTIONS) writes every JavaScript file it loads to a log and
// refuses any TypeScript source, so a program that fell back to the sources fails here. The
// build is made fresh first: the programs would rebuild a stale one themselves (build.spec.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '@strata/testing';
import { startEngineProcess } from '../reliability/support/engine-process';

interface BuildScript {
  build(): { files: number };
}
interface BuildSources {
  staleReason(): string | undefined;
}

/* eslint-disable @typescript-eslint/no-require-imports -- the build scripts are CommonJS without types */
const { build } = require('../../scripts/build.js') as BuildScript;
const { staleReason } = require('../../scripts/build-sources.js') as BuildSources;
/* eslint-enable @typescript-eslint/no-require-imports */

const probeSource = `'use strict';
const Module = require('node:module');
const fs = require('node:fs');
const log = process.env.STRATA_LOADED_LOG;
Module._extensions['.ts'] = (module, filename) => {
  throw new Error('a TypeScript source was loaded: ' + filename);
};
const compileJavaScript = Module._extensions['.js'];
Module._extensions['.js'] = function logged(module, filename) {
  fs.appendFileSync(log, filename + '\\n');
  return compileJavaScript.call(this, module, filename);
};
`;

const packageVersion = (
  JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as { version: string }
).version;

let directory: string;
let probe: string;
let loadedLog: string;

function loadedFiles(): string[] {
  return readFileSync(loadedLog, 'utf8').split('\n').filter(Boolean);
}

function strata(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  writeFileSync(loadedLog, '');
  const result = spawnSync(process.execPath, [join(repositoryRoot, 'bin', 'strata.js'), ...args], {
    cwd: directory,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: `--require ${probe}`, STRATA_LOADED_LOG: loadedLog },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-built-'));
  probe = join(directory, 'probe.js');
  loadedLog = join(directory, 'loaded.log');
  writeFileSync(probe, probeSource);
  if (staleReason() !== undefined) build();
});

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('the strata command, built', () => {
  it('answers --help from dist/ without loading a command, NestJS or a store', () => {
    const result = strata('--help');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^usage: strata <command> \[options\]\n/);
    expect(result.stdout).toContain('  prepare-compaction  ');
    const loaded = loadedFiles();
    expect(loaded).toContain(join(repositoryRoot, 'dist', 'apps', 'cli', 'src', 'main.js'));
    expect(
      loaded.filter((file) => file.includes(`${join('src', 'commands')}/`) && !file.endsWith('index.js')),
    ).toEqual([]);
    expect(
      loaded.filter((file) => /node_modules\/(@nestjs|better-sqlite3|@eventstore|openai)\//.test(file)),
    ).toEqual([]);
  });

  it('answers --version from dist/ with the version of package.json', () => {
    const result = strata('--version');
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`strata ${packageVersion}\n`);
    expect(loadedFiles()).toContain(join(repositoryRoot, 'dist', 'apps', 'cli', 'src', 'version.js'));
  });

  it("loads a command's module from dist/ for its help", () => {
    const result = strata('help', 'verify');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^strata verify /);
    expect(loadedFiles()).toContain(
      join(repositoryRoot, 'dist', 'apps', 'cli', 'src', 'commands', 'verify.command.js'),
    );
  });
});

describe('the engine, built', () => {
  it('serves /health and its API document from dist/', async () => {
    writeFileSync(loadedLog, '');
    const engine = await startEngineProcess({
      directory,
      environment: { NODE_OPTIONS: `--require ${probe}`, STRATA_LOADED_LOG: loadedLog },
    });
    try {
      expect(await engine.request('GET', '/health')).toEqual({ status: 200, body: { status: 'ok' } });
      const document = await engine.request('GET', '/docs/openapi.json');
      expect(document.status).toBe(200);
      expect((document.body as { info: { version: string } }).info.version).toBe(packageVersion);
      const loaded = loadedFiles();
      expect(loaded).toContain(join(repositoryRoot, 'dist', 'apps', 'engine', 'src', 'main.js'));
      expect(loaded).toContain(join(repositoryRoot, 'dist', 'libs', 'event-store', 'src', 'index.js'));
      // On SQLite with the offline summariser, the optional providers' clients stay unloaded.
      expect(
        loaded.filter((file) => /node_modules\/(@eventstore|@anthropic-ai|openai)\//.test(file)),
      ).toEqual([]);
      expect(engine.stderr()).not.toContain('building dist/ again');
    } finally {
      await engine.kill('SIGTERM');
    }
  });
});
