// The container image's recipe, tested without a Docker engine (issue 26 item 5): the script the
// Dockerfile's build stage runs (scripts/container/build-runtime-tree.js) makes a runtime tree in
// a temporary directory, from this checkout and a copy of its installed node_modules (so no
// native module is compiled and no registry is needed). The tree holds the production
// dependencies only and no test files; the engine starts from it on a new SQLite file without
// rebuilding, and the image's health check script answers for it. The Dockerfile is read to check
// that its stages run that script and that health check, so recipe and test cannot drift apart.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  utimesSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '@strata/testing';
import { startEngineProcess } from '../reliability/support/engine-process';

/* eslint-disable-next-line @typescript-eslint/no-require-imports -- the script is CommonJS without types */
const { checkoutEntries } = require('../../scripts/container/build-runtime-tree.js') as {
  checkoutEntries: readonly string[];
};

interface LockedPackage {
  readonly dev?: boolean;
}
interface PackageManifest {
  readonly dependencies: Record<string, string>;
  readonly devDependencies: Record<string, string>;
}

const TREE_BUILD_TIMEOUT_MS = 240_000;
const script = join(repositoryRoot, 'scripts', 'container', 'build-runtime-tree.js');
const manifest = JSON.parse(readFileSync(join(repositoryRoot, 'package.json'), 'utf8')) as PackageManifest;
const lockedPackages = (
  JSON.parse(readFileSync(join(repositoryRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockedPackage>;
  }
).packages;

let directory: string;
let tree: string;
let buildOutput: string;

function filesUnder(root: string, relative = ''): string[] {
  return readdirSync(join(root, relative), { withFileTypes: true }).flatMap((entry) => {
    const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.name === 'node_modules') return [];
    return entry.isDirectory() ? [`${path}/`, ...filesUnder(root, path)] : [path];
  });
}

/** Runs the image's health check script with `environment`; resolves with its code and stderr. */
function healthcheck(environment: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(tree, 'scripts', 'container', 'healthcheck.js')], {
      env: { PATH: process.env.PATH ?? '', ...environment },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

/** Runs the cluster's signing-key script of the tree into `keys`. */
function signingKey(keys: string): { status: number | null; stdout: string } {
  const result = spawnSync(process.execPath, [join(tree, 'scripts', 'container', 'signing-key.js'), keys], {
    encoding: 'utf8',
  });
  if (result.stderr !== '') throw new Error(result.stderr);
  return { status: result.status, stdout: result.stdout };
}

beforeAll(() => {
  directory = mkdtempSync(join(tmpdir(), 'strata-runtime-tree-'));
  tree = join(directory, 'tree');
  const result = spawnSync(
    process.execPath,
    [script, '--out', tree, '--node-modules', realpathSync(join(repositoryRoot, 'node_modules'))],
    { encoding: 'utf8', timeout: TREE_BUILD_TIMEOUT_MS - 10_000 },
  );
  buildOutput = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`build-runtime-tree failed (${result.status}):\n${buildOutput}`);
}, TREE_BUILD_TIMEOUT_MS);

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describe('the runtime tree of the container image', () => {
  it('is announced once built', () => {
    expect(buildOutput).toContain(`runtime tree ready in ${tree}`);
  });

  it('holds every production dependency and no package only the development tools need', () => {
    for (const name of Object.keys(manifest.dependencies)) {
      expect(existsSync(join(tree, 'node_modules', name, 'package.json'))).toBe(true);
    }
    // npm itself finds every production dependency, at the lockfile's versions, and nothing missing
    const listed = spawnSync('npm', ['ls', '--omit=dev', '--offline', '--all'], {
      cwd: tree,
      encoding: 'utf8',
    });
    expect({ status: listed.status, stderr: listed.stderr.replace(/npm warn EBADENGINE.*\n/g, '') }).toEqual({
      status: 0,
      stderr: '',
    });
    const devOnly = Object.entries(lockedPackages)
      .filter(([path, locked]) => path.startsWith('node_modules/') && locked.dev === true)
      .map(([path]) => path);
    expect(devOnly.length).toBeGreaterThan(100);
    expect(devOnly.filter((path) => existsSync(join(tree, path)))).toEqual([]);
    for (const tool of ['jest', '@swc/jest', 'typescript', 'eslint', 'prettier', 'knip', 'playwright-core']) {
      expect(Object.keys(manifest.devDependencies)).toContain(tool);
      expect(existsSync(join(tree, 'node_modules', tool))).toBe(false);
    }
  });

  it('holds the build and the viewer, and no test, fixture, bench or CI file', () => {
    const files = filesUnder(tree);
    expect(files).toContain('dist/apps/engine/src/main.js');
    expect(files).toContain('dist/build-info.json');
    expect(files).toContain('apps/viewer/dist/main.js');
    expect(files).toContain('prompts/');
    expect(files).toContain('scripts/container/healthcheck.js');
    expect(
      files.filter(
        (path) =>
          /(^|\/)testing\//.test(path) ||
          /spec\.ts$|\.jsonl$/.test(path) ||
          /^(test|bench|\.ci|docs|\.git)\//.test(path),
      ),
    ).toEqual([]);
  });

  it('makes a signing key to share once, and keeps it on the next run', () => {
    const keys = join(directory, 'keys');
    const made = signingKey(keys);
    expect(made).toEqual({
      status: 0,
      stdout: expect.stringMatching(/^made .*signing-key\.pem \(key [0-9a-f]+\)\n$/),
    });
    expect(statSync(join(keys, 'signing-key.pem')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(keys, 'signing-key.pub.pem'), 'utf8')).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    const kept = signingKey(keys);
    expect(kept.stdout).toBe(made.stdout.replace(/^made/, 'kept'));
  });

  it("starts the engine on a new SQLite file without rebuilding, whatever its files' times, and the health check answers for it", async () => {
    // the engine's working directory holds its data, as /var/lib/strata does in the image
    const data = join(directory, 'data');
    mkdirSync(data);
    const keys = join(directory, 'engine-keys');
    const keyId = /\(key ([0-9a-f]+)\)/.exec(signingKey(keys).stdout)?.[1];
    expect(keyId).toBeDefined();
    // a copy between the image's stages may give the sources newer times than the build's:
    // the frozen tree is run as it is all the same
    const source = join(tree, 'apps', 'engine', 'src', 'main.ts');
    const later = new Date(Date.now() + 60_000);
    utimesSync(source, later, later);
    expect(existsSync(join(tree, 'dist', 'frozen.json'))).toBe(true);
    const engine = await startEngineProcess({
      directory: data,
      root: tree,
      environment: { STRATA_SIGNING_KEY_FILE: join(keys, 'signing-key.pem') },
    });
    const port = new URL(engine.url).port;
    try {
      expect(await engine.request('GET', '/health')).toEqual({ status: 200, body: { status: 'ok' } });
      expect(engine.stderr()).not.toContain('building dist/ again');
      expect(existsSync(join(data, 'strata.db'))).toBe(true);
      expect(engine.stdout()).toContain(`key ${keyId ?? ''} (${join(keys, 'signing-key.pem')})`);
      expect(await healthcheck({ PORT: port })).toEqual({ code: 0, stderr: '' });
    } finally {
      await engine.kill('SIGTERM');
    }
    const afterStop = await healthcheck({ PORT: port, STRATA_HOST: '0.0.0.0' });
    expect(afterStop.code).toBe(1);
    expect(afterStop.stderr).toMatch(new RegExp(`^healthcheck: http://127\\.0\\.0\\.1:${port}/health: `));
  }, 120_000);
});

describe('the Dockerfile', () => {
  const dockerfile = readFileSync(join(repositoryRoot, 'Dockerfile'), 'utf8');
  const stages = dockerfile
    .split(/^FROM /m)
    .slice(1)
    .map((stage) => stage.replace(/\\\n\s*/g, ' '));
  const [buildStage = '', runtimeStage = ''] = stages;

  it('builds in one stage with the tested script and runs the copied tree in another', () => {
    expect(stages).toHaveLength(2);
    expect(buildStage).toMatch(/^\$\{NODE_IMAGE\} AS build\n/);
    expect(buildStage).toMatch(
      /^RUN node scripts\/container\/build-runtime-tree\.js --from \/checkout --out \/opt\/strata$/m,
    );
    expect(runtimeStage).toMatch(/^\$\{NODE_IMAGE\} AS runtime\n/);
    expect(runtimeStage).toMatch(/^COPY --from=build \/opt\/strata \/opt\/strata$/m);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24-bookworm-slim$/m);
  });

  it('runs node on bin/engine.js as a user other than root, with its data in a volume and a health check', () => {
    expect(runtimeStage).toMatch(/^USER node$/m);
    expect(runtimeStage).toMatch(/^WORKDIR \/var\/lib\/strata$/m);
    expect(runtimeStage).toMatch(/^VOLUME \["\/var\/lib\/strata"\]$/m);
    expect(runtimeStage).toContain('STRATA_STORE=sqlite:/var/lib/strata/data/strata.db');
    expect(runtimeStage).toMatch(
      /^HEALTHCHECK .* CMD \["node", "\/opt\/strata\/scripts\/container\/healthcheck\.js"\]$/m,
    );
    expect(runtimeStage).toMatch(/^EXPOSE 3000$/m);
    expect(runtimeStage).toMatch(/^STOPSIGNAL SIGTERM$/m);
    expect(runtimeStage).toMatch(/^CMD \["node", "\/opt\/strata\/bin\/engine\.js"\]$/m);
    expect(runtimeStage.indexOf('USER node')).toBeLessThan(runtimeStage.indexOf('CMD ["node"'));
  });

  it('keeps out of the build context nothing the script copies', () => {
    const ignored = readFileSync(join(repositoryRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['.git', '**/node_modules', '**/dist']));
    expect(checkoutEntries).toContain('prompts');
    for (const entry of checkoutEntries) {
      expect(ignored).not.toContain(entry);
    }
  });
});
