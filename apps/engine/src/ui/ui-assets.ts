// The audit viewer's files as built by apps/viewer (`npm run build:viewer`, run by `prepare` on
// every npm install): the page, its stylesheet, one bundled ES module and its source map, read
// from apps/viewer/dist the first time they are asked for and kept. The engine compiles nothing.
// Asset names are the files found there, so a request can only name one of them. A missing build
// is not an error of the engine: it says so (`missing()`) and /ui answers 503 until there is one.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative } from 'node:path';

export interface UiAsset {
  readonly contentType: string;
  readonly body: Buffer;
  /** A strong validator of the body (quoted, as the ETag header carries it). */
  readonly etag: string;
}

/**
 * apps/viewer/dist, where `npm run build:viewer` writes the viewer: found from the repository's
 * package.json above this module, so that the engine's build in dist/ finds it as well.
 */
export const defaultViewerDirectory = join(repositoryRootAbove(__dirname), 'apps', 'viewer', 'dist');

export const VIEWER_BUILD_COMMAND = 'npm run build:viewer';

export const UI_PAGE_NAME = 'index.html';

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

function asset(contentType: string, body: Buffer): UiAsset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return { contentType, body, etag: `"${digest}"` };
}

function repositoryRootAbove(directory: string): string {
  for (let current = directory; ; current = dirname(current)) {
    if (existsSync(join(current, 'package.json'))) return current;
    if (dirname(current) === current) return join(directory, '..', '..', '..', '..');
  }
}

/** Reads every servable file of a built viewer (those of a known type). */
export function readUiAssets(directory: string): ReadonlyMap<string, UiAsset> {
  const assets = new Map<string, UiAsset>();
  for (const fileName of readdirSync(directory).sort()) {
    const contentType = contentTypes[extname(fileName)];
    if (contentType === undefined) continue;
    assets.set(fileName, asset(contentType, readFileSync(join(directory, fileName))));
  }
  return assets;
}

/** The viewer's built assets, read on first use and kept; none while the viewer is not built. */
export class UiAssets {
  private read: ReadonlyMap<string, UiAsset> | undefined;

  constructor(private readonly directory: string = defaultViewerDirectory) {}

  /** Undefined once the viewer is built; else one line that says how to build it. */
  missing(): string | undefined {
    if (existsSync(join(this.directory, UI_PAGE_NAME))) return undefined;
    const relativePath = relative(process.cwd(), this.directory);
    const where = relativePath === '' || relativePath.startsWith('..') ? this.directory : relativePath;
    return `the audit viewer is not built (no ${join(where, UI_PAGE_NAME)}): run \`${VIEWER_BUILD_COMMAND}\``;
  }

  page(): UiAsset | undefined {
    return this.all()?.get(UI_PAGE_NAME);
  }

  /** The asset served as `/ui/assets/<name>`, if there is one (the page itself is not an asset). */
  asset(name: string): UiAsset | undefined {
    return name === UI_PAGE_NAME ? undefined : this.all()?.get(name);
  }

  names(): string[] {
    return [...(this.all()?.keys() ?? [])];
  }

  private all(): ReadonlyMap<string, UiAsset> | undefined {
    if (this.read === undefined && this.missing() === undefined) this.read = readUiAssets(this.directory);
    return this.read;
  }
}
