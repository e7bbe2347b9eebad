// Headless Chromium for the audit viewer's end-to-end tests: Debian's /usr/bin/chromium
// (STRATA_CHROMIUM overrides the path) driven by playwright-core, which never downloads a
// browser. Each launch gets a fresh profile directory and the flags that keep Chromium off the
// network. Without Chromium the tests fail under CI=true and are skipped elsewhere, loudly: a
// warning in the output and a skipped test that says why. Screenshots go to test-artifacts/ui/ (gitignored).
// Opening a browser first builds the viewer (apps/viewer/dist) when a source is newer than the
// build, so the tests see the viewer as it is now, from a clean clone too.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { VIEWER_DIST, buildViewer } from '../../apps/viewer/build';

export const chromiumPath = process.env.STRATA_CHROMIUM ?? '/usr/bin/chromium';

export const screenshotDirectory = resolve(__dirname, '..', '..', 'test-artifacts', 'ui');

const chromiumFlags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface BrowserSession {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught errors of the page's scripts; a test can expect none. */
  readonly pageErrors: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface BrowserOptions {
  readonly width?: number;
  readonly height?: number;
}

const repositoryRoot = resolve(__dirname, '..', '..');
/** What the viewer's build is made of: a change to any of them makes the build stale. */
const viewerSources = ['apps/viewer/src', 'apps/viewer/static', 'apps/viewer', 'libs/client/src'];

function newestSourceTime(): number {
  return Math.max(
    ...viewerSources.flatMap((folder) =>
      readdirSync(join(repositoryRoot, folder), { withFileTypes: true })
        .filter((item) => item.isFile())
        .map((item) => statSync(join(repositoryRoot, folder, item.name)).mtimeMs),
    ),
  );
}

/** Builds the viewer unless apps/viewer/dist is newer than every file it is built from. */
export async function ensureViewerBuilt(): Promise<void> {
  const built = join(VIEWER_DIST, 'main.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newestSourceTime()) return;
  await buildViewer();
}

export async function openBrowser(options: BrowserOptions = {}): Promise<BrowserSession> {
  await ensureViewerBuilt();
  const profile = mkdtempSync(join(tmpdir(), 'strata-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumFlags,
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  mkdirSync(screenshotDirectory, { recursive: true });
  return {
    context,
    page,
    pageErrors,
    async screenshot(name) {
      const path = join(screenshotDirectory, `${name}.png`);
      await page.screenshot({ path, fullPage: false });
      return path;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A `describe` block that needs Chromium. Without it the block holds one failing test under
 * CI=true, elsewhere one skipped test whose name says so and a printed warning: the suite never
 * passes silently without a browser.
 */
export function describeWithChromium(title: string, body: () => void): void {
  if (existsSync(chromiumPath)) {
    describe(title, body);
    return;
  }
  const notice = `Chromium not found at ${chromiumPath}: install Debian's chromium (apt-get install chromium) to run the audit viewer's browser tests`;
  if (process.env.CI === 'true') {
    describe(title, () => {
      it('needs Chromium (required under CI=true; .ci/run installs it)', () => {
        throw new Error(notice);
      });
    });
    return;
  }
  console.warn(`\n*** SKIPPED "${title}" — ${notice} ***\n`);
  describe(title, () => {
    it.skip(`SKIPPED: ${notice}`, () => undefined);
  });
}

/** Reads until `check` passes (it throws while not), or fails with its last error after `timeoutMs`. */
export async function eventually<Value>(
  read: () => Promise<Value>,
  check: (value: Value) => void,
  timeoutMs = 10_000,
): Promise<Value> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await read();
      check(value);
      return value;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
