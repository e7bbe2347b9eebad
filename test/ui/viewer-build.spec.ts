// The audit viewer as apps/viewer/build.js bundles it: one self-contained ES module (the client
// library's parser inside it, nothing of Node), a page that links only what the build holds, and
// nothing loaded from another origin; the engine serves that directory as it is.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildViewer } from '../../apps/viewer/build';
import { UI_PAGE_NAME, UiAssets } from '../../apps/engine/src/ui/ui-assets';

describe('given the viewer built into a directory of its own', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-viewer-build-'));
  let assets: UiAssets;
  let main: string;

  beforeAll(async () => {
    await buildViewer({ outdir: join(directory, 'dist') });
    assets = new UiAssets(join(directory, 'dist'));
    main = readFileSync(join(directory, 'dist', 'main.js'), 'utf8');
  });

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('holds the page, the stylesheet and one bundled module with its source map', () => {
    expect(assets.missing()).toBeUndefined();
    expect(assets.names().sort()).toEqual([UI_PAGE_NAME, 'main.js', 'main.js.map', 'styles.css']);
  });

  it('bundles everything into main.js: no import, no require, nothing of Node', () => {
    expect(main).not.toMatch(/^\s*import\s|\bimport\(|\brequire\(|exports\.|['"]node:/m);
    expect(main).toContain('// libs/client/src/event-stream-parser.ts');
    expect(main).not.toContain('libs/client/src/transport.ts');
    expect(main).toMatch(/\/\/# sourceMappingURL=main\.js\.map\s*$/);
  });

  it('links from the page only what the build holds', () => {
    const page = assets.page()?.body.toString('utf8') ?? '';
    const linked = [...page.matchAll(/(?:src|href)="\/ui\/assets\/([^"]+)"/g)].map((match) => match[1]);
    expect(linked).toEqual(['styles.css', 'main.js']);
  });

  it('loads nothing from another origin', () => {
    const served = [UI_PAGE_NAME, 'styles.css', 'main.js']
      .map((name) => (name === UI_PAGE_NAME ? assets.page() : assets.asset(name))?.body.toString('utf8'))
      .join('\n');
    expect(served).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
  });
});
