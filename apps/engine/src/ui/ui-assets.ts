// The audit viewer's files: the page and stylesheet in `static/` as they are, and the browser
// modules in `client/` (TypeScript) compiled to plain ES modules with the project's swc the first
// time they are asked for. Nothing is fetched from elsewhere at run time; asset names are the
// files found here, so a request can only name one of them.
import { transformSync } from '@swc/core';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

export interface UiAsset {
  readonly contentType: string;
  readonly body: Buffer;
  /** A strong validator of the body (quoted, as the ETag header carries it). */
  readonly etag: string;
}

export interface UiAssetDirectories {
  /** HTML and CSS served as they are. */
  readonly staticDirectory: string;
  /** `*.ts` browser modules (specs excluded), each served as `<name>.js`. */
  readonly clientDirectory: string;
}

export const defaultUiAssetDirectories: UiAssetDirectories = {
  staticDirectory: join(__dirname, 'static'),
  clientDirectory: join(__dirname, 'client'),
};

export const UI_PAGE_NAME = 'index.html';

const staticContentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
const MODULE_CONTENT_TYPE = 'text/javascript; charset=utf-8';

function asset(contentType: string, body: Buffer): UiAsset {
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
  return { contentType, body, etag: `"${digest}"` };
}

/** Strips the types of one browser module; imports keep their `./name.js` specifiers. */
export function compileClientModule(source: string, filename: string): string {
  return transformSync(source, {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'es6' },
    sourceMaps: 'inline',
  }).code;
}

function isClientModule(fileName: string): boolean {
  return fileName.endsWith('.ts') && !fileName.endsWith('.spec.ts') && !fileName.endsWith('.d.ts');
}

/** Reads and compiles every asset of the directories. Throws when a module does not compile. */
export function buildUiAssets(directories: UiAssetDirectories): ReadonlyMap<string, UiAsset> {
  const assets = new Map<string, UiAsset>();
  for (const fileName of readdirSync(directories.staticDirectory).sort()) {
    const contentType = staticContentTypes[extname(fileName)];
    if (contentType === undefined) continue;
    assets.set(fileName, asset(contentType, readFileSync(join(directories.staticDirectory, fileName))));
  }
  for (const fileName of readdirSync(directories.clientDirectory).sort()) {
    if (!isClientModule(fileName)) continue;
    const path = join(directories.clientDirectory, fileName);
    const code = compileClientModule(readFileSync(path, 'utf8'), path);
    assets.set(fileName.replace(/\.ts$/, '.js'), asset(MODULE_CONTENT_TYPE, Buffer.from(code, 'utf8')));
  }
  if (!assets.has(UI_PAGE_NAME)) throw new Error(`the audit viewer has no ${UI_PAGE_NAME}`);
  return assets;
}

/** The viewer's assets, built on first use and kept. */
export class UiAssets {
  private built: ReadonlyMap<string, UiAsset> | undefined;

  constructor(private readonly directories: UiAssetDirectories = defaultUiAssetDirectories) {}

  page(): UiAsset {
    const page = this.all().get(UI_PAGE_NAME);
    if (page === undefined) throw new Error(`the audit viewer has no ${UI_PAGE_NAME}`);
    return page;
  }

  /** The asset served as `/ui/assets/<name>`, if there is one (the page itself is not an asset). */
  asset(name: string): UiAsset | undefined {
    return name === UI_PAGE_NAME ? undefined : this.all().get(name);
  }

  names(): string[] {
    return [...this.all().keys()];
  }

  private all(): ReadonlyMap<string, UiAsset> {
    this.built ??= buildUiAssets(this.directories);
    return this.built;
  }
}
