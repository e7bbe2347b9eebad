// The dependency rule run as `npm run depcheck` runs it, on small repositories made for each case.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const script = join(__dirname, 'check-dependencies.js');

function repositoryOf(files: Readonly<Record<string, string>>): string {
  const root = mkdtempSync(join(tmpdir(), 'strata-depcheck-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

function check(files: Readonly<Record<string, string>>): { status: number | null; stderr: string } {
  const root = repositoryOf(files);
  try {
    const run = spawnSync(process.execPath, [script, '--root', root], { encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const layered = {
  'apps/engine/src/shared/clock.ts': 'export const clock = 1;\n',
  'apps/engine/src/session-streams/streams.ts':
    "import { clock } from '../shared/clock';\nexport const s = clock;\n",
  'apps/engine/src/sessions/compact-session/compact.ts':
    "import { s } from '../../session-streams/streams';\nexport const a = s;\n",
  'apps/engine/src/sagas/saga.ts':
    "import { a } from '../sessions/compact-session/compact';\nexport const g = a;\n",
  'apps/engine/src/index.ts': "export { a } from './sessions/compact-session/compact';\n",
  'apps/cli/src/main.ts': "import { a } from '@strata/engine';\nexport const m = a;\n",
  'libs/session/src/index.ts': "import { z } from 'zod';\nexport const schema = z.string();\n",
};

describe('the dependency rule', () => {
  it('passes a repository whose engine imports only downwards and whose CLI uses @strata/engine', () => {
    expect(check(layered)).toEqual({ status: 0, stderr: '' });
  });

  it('fails on an import running back up the engine’s floors, naming the file and both folders', () => {
    const { status, stderr } = check({
      ...layered,
      'apps/engine/src/sessions/compact-session/compact.ts':
        "import { g } from '../../sagas/saga';\nexport const a = g;\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain(
      'apps/engine/src/sessions/compact-session/compact.ts: sessions/compact-session imports sagas, a floor above its own (../../sagas/saga)',
    );
  });

  it('fails on two folders of one floor importing each other', () => {
    const { status, stderr } = check({
      ...layered,
      'apps/engine/src/ui/page.ts': "import { h } from '../health/health';\nexport const p = h;\n",
      'apps/engine/src/health/health.ts': 'export const h = 1;\n',
    });
    expect(status).toBe(1);
    expect(stderr).toContain('ui imports health, a folder on its own floor');
  });

  it('fails on a use case importing another slice of its floor, and lets a slice import its own files', () => {
    const { status, stderr } = check({
      ...layered,
      'apps/engine/src/sessions/compact-session/compact.ts':
        "import { n } from '../navigate-session/navigate';\nimport { r } from './record';\nexport const a = n + r;\n",
      'apps/engine/src/sessions/compact-session/record.ts': 'export const r = 1;\n',
      'apps/engine/src/sessions/navigate-session/navigate.ts': 'export const n = 1;\n',
    });
    expect(status).toBe(1);
    expect(stderr).toContain(
      'sessions/compact-session imports sessions/navigate-session, a folder on its own floor',
    );
    expect(stderr).not.toContain('./record');
  });

  it('fails on a folder that is on no floor, and on a file at the root imported from below', () => {
    const { status, stderr } = check({
      ...layered,
      'apps/engine/src/gadgets/gadget.ts': 'export const x = 1;\n',
      'apps/engine/src/shared/uses-root.ts': "import { a } from '../index';\nexport const y = a;\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain('apps/engine/src/gadgets is on no floor');
    expect(stderr).toContain('shared imports ., a floor above its own');
  });

  it('fails on the CLI reaching into the engine by path, and on the engine importing its own entry point', () => {
    const { status, stderr } = check({
      ...layered,
      'apps/cli/src/main.ts': "import { a } from '../../engine/src/sessions/append';\nexport const m = a;\n",
      'apps/engine/src/sagas/saga.ts': "import { a } from '@strata/engine';\nexport const g = a;\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain('apps/cli/src/main.ts: reaches outside apps/cli by path');
    expect(stderr).toContain('apps/engine/src/sagas/saga.ts: the engine imports its own public entry point');
  });

  it('lets a spec assemble the engine from any floor', () => {
    expect(
      check({
        ...layered,
        'apps/engine/src/shared/clock.spec.ts': "import { g } from '../sagas/saga';\nit('runs', () => g);\n",
      }).status,
    ).toBe(0);
  });

  it('fails on libs/session importing a package or reading the clock, and on a lib importing an app', () => {
    const { status, stderr } = check({
      ...layered,
      'libs/session/src/index.ts':
        "import { readFileSync } from 'node:fs';\nexport const now = Date.now();\n",
      'libs/store/src/index.ts': "import { a } from '@strata/engine';\nexport const s = a;\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain("libs/session must stay pure but imports 'node:fs'");
    expect(stderr).toContain('libs/session must not read the clock');
    expect(stderr).toContain('libs/store/src/index.ts: a lib imports an app (@strata/engine)');
  });

  it('fails on libs/client importing anything but Node and its own files (no Nest, no other lib)', () => {
    const clean = check({
      ...layered,
      'libs/client/src/index.ts':
        "import { setTimeout } from 'node:timers/promises';\nexport const t = setTimeout;\n",
      'libs/client/src/client.spec.ts': "import { t } from './index';\nit('runs', () => t);\n",
    });
    expect(clean).toEqual({ status: 0, stderr: '' });
    const { status, stderr } = check({
      ...layered,
      'libs/client/src/index.ts':
        "import { Injectable } from '@nestjs/common';\nimport { schema } from '@strata/session';\nexport const i = [Injectable, schema];\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain("libs/client depends on Node only but imports '@nestjs/common'");
    expect(stderr).toContain("libs/client depends on Node only but imports '@strata/session'");
  });

  it('fails on apps/viewer importing anything but its own files and @strata/client/browser', () => {
    const viewer = {
      ...layered,
      'libs/client/src/browser.ts': "export * from './errors';\n",
      'libs/client/src/errors.ts': 'export class ClientError extends Error {}\n',
      'apps/viewer/src/main.ts':
        "import { ClientError } from '@strata/client/browser';\nimport { d } from './dom.js';\nexport const m = [ClientError, d];\n",
      'apps/viewer/src/dom.ts': 'export const d = 1;\n',
      'apps/viewer/src/dom.spec.ts':
        "import fc from 'fast-check';\nimport { d } from './dom';\nit('runs', () => [fc, d]);\n",
    };
    expect(check(viewer)).toEqual({ status: 0, stderr: '' });
    const { status, stderr } = check({
      ...viewer,
      'apps/viewer/src/dom.ts':
        "import { z } from 'zod';\nimport { StrataClient } from '@strata/client';\nexport const d = [z, StrataClient];\n",
      'apps/viewer/src/dom.spec.ts': "import { schema } from '@strata/session';\nit('runs', () => schema);\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain(
      "apps/viewer/src/dom.ts: apps/viewer runs in the browser and imports only its own files and @strata/client/browser, not 'zod'",
    );
    expect(stderr).toContain("not '@strata/client'");
    expect(stderr).toContain(
      "apps/viewer/src/dom.spec.ts: apps/viewer runs in the browser and imports only its own files and @strata/client/browser, not '@strata/session'",
    );
  });

  it("fails on a file the client's browser entry reaches importing a node: built-in", () => {
    const { status, stderr } = check({
      ...layered,
      'libs/client/src/browser.ts': "export * from './errors';\n",
      'libs/client/src/errors.ts': "import { inspect } from 'node:util';\nexport const i = inspect;\n",
      'libs/client/src/transport.ts':
        "import { setTimeout } from 'node:timers/promises';\nexport const t = setTimeout;\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain(
      "libs/client/src/errors.ts: reached from libs/client/src/browser.ts, which a browser bundles, but imports 'node:util'",
    );
    expect(stderr).not.toContain('transport.ts');
  });

  it('fails on libs/event-store importing the session libraries, specs included', () => {
    const { status, stderr } = check({
      ...layered,
      'libs/event-store/src/index.ts':
        "import { schema } from '@strata/session';\nexport const e = schema;\n",
      'libs/event-store/src/store.spec.ts':
        "import { loadSession } from '@strata/session-files';\nit('runs', () => loadSession);\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain(
      'libs/event-store/src/index.ts: libs/event-store must not import @strata/session',
    );
    expect(stderr).toContain(
      'libs/event-store/src/store.spec.ts: libs/event-store must not import @strata/session-files',
    );
  });

  it('fails on the event store’s sources importing @strata/integrity, and on libs/integrity importing sessions', () => {
    const clean = check({
      ...layered,
      'libs/event-store/src/store.spec.ts':
        "import { verifyStream } from '@strata/integrity';\nit('runs', () => verifyStream);\n",
      'libs/event-store/src/handler-spec-support.ts':
        "import { appendChained } from '@strata/integrity';\nexport const a = appendChained;\n",
    });
    expect(clean).toEqual({ status: 0, stderr: '' });
    const { status, stderr } = check({
      ...layered,
      'libs/event-store/src/handler.ts':
        "import { sealingAppender } from '@strata/integrity';\nexport const s = sealingAppender;\n",
      'libs/integrity/src/index.ts':
        "import { loadSession } from '@strata/session-files';\nexport const l = loadSession;\n",
    });
    expect(status).toBe(1);
    expect(stderr).toContain(
      'libs/event-store/src/handler.ts: libs/event-store must not import @strata/integrity',
    );
    expect(stderr).toContain(
      'libs/integrity/src/index.ts: libs/integrity must not import @strata/session-files',
    );
  });
});
