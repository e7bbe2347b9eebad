import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildUiAssets, UI_PAGE_NAME, UiAssets } from './ui-assets';

describe('given the audit viewer shipped with the engine', () => {
  const assets = new UiAssets();

  it('serves the page, the stylesheet and one plain ES module per client source', () => {
    const names = assets.names();
    expect(names).toEqual(expect.arrayContaining([UI_PAGE_NAME, 'styles.css', 'main.js', 'virtual-list.js']));
    expect(names.filter((name) => name.endsWith('.spec.js') || name.endsWith('.ts'))).toEqual([]);
    const main = assets.asset('main.js');
    expect(main?.contentType).toBe('text/javascript; charset=utf-8');
    expect(main?.body.toString('utf8')).not.toMatch(/require\(|exports\./);
  });

  it('links only assets that exist, from the page and from every module import', () => {
    const page = assets.page().body.toString('utf8');
    const linked = [...page.matchAll(/(?:src|href)="\/ui\/assets\/([^"]+)"/g)].map((match) => match[1]);
    expect(linked).toEqual(['styles.css', 'main.js']);
    const imported = assets
      .names()
      .filter((name) => name.endsWith('.js'))
      .flatMap((name) => {
        const code = assets.asset(name)?.body.toString('utf8') ?? '';
        return [...code.matchAll(/from\s+'\.\/([^']+)'/g)].map((match) => match[1] ?? '');
      });
    expect(imported.length).toBeGreaterThan(10);
    for (const name of new Set([...linked, ...imported])) expect(assets.asset(name ?? '')).toBeDefined();
  });

  it('does not load anything from another origin', () => {
    const everything = assets
      .names()
      .map(
        (name) => (name === UI_PAGE_NAME ? assets.page() : assets.asset(name))?.body.toString('utf8') ?? '',
      )
      .join('\n');
    expect(everything).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
  });

  it('knows no asset outside its directories and does not serve the page as an asset', () => {
    expect(assets.asset('../ui.controller.ts')).toBeUndefined();
    expect(assets.asset('ui-assets.ts')).toBeUndefined();
    expect(assets.asset(UI_PAGE_NAME)).toBeUndefined();
  });
});

describe('given a client module that does not compile', () => {
  it('names the module when the assets are built', () => {
    const directory = mkdtempSync(join(tmpdir(), 'strata-ui-'));
    try {
      mkdirSync(join(directory, 'static'));
      mkdirSync(join(directory, 'client'));
      writeFileSync(join(directory, 'static', UI_PAGE_NAME), '<!doctype html>');
      writeFileSync(join(directory, 'client', 'broken.ts'), 'export const = ;');
      expect(() =>
        buildUiAssets({
          staticDirectory: join(directory, 'static'),
          clientDirectory: join(directory, 'client'),
        }),
      ).toThrow(/broken\.ts/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
