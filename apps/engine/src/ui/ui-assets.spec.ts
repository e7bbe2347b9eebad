// The engine serves the files apps/viewer built, as they are, and says how to build them when
// they are missing. (The real build is checked in test/ui/viewer-build.spec.ts.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '../api/problem/api-errors';
import { UI_PAGE_NAME, UiAssets } from './ui-assets';
import { UiController } from './ui.controller';

describe('given a built viewer', () => {
  const directory = mkdtempSync(join(tmpdir(), 'strata-ui-'));
  writeFileSync(
    join(directory, UI_PAGE_NAME),
    '<!doctype html><script type="module" src="/ui/assets/main.js">',
  );
  writeFileSync(join(directory, 'styles.css'), 'body {}');
  writeFileSync(join(directory, 'main.js'), 'export {};\n//# sourceMappingURL=main.js.map');
  writeFileSync(join(directory, 'main.js.map'), '{"version":3}');
  writeFileSync(join(directory, 'notes.txt'), 'not served');
  const assets = new UiAssets(directory);

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('serves the page, the stylesheet, the module and its map, each with its type and a strong etag', () => {
    expect(assets.missing()).toBeUndefined();
    expect(assets.names().sort()).toEqual([UI_PAGE_NAME, 'main.js', 'main.js.map', 'styles.css']);
    expect(assets.page()?.contentType).toBe('text/html; charset=utf-8');
    expect(assets.asset('main.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.asset('main.js.map')?.contentType).toBe('application/json; charset=utf-8');
    expect(assets.asset('styles.css')?.etag).toMatch(/^"[\w-]{27}"$/);
  });

  it('knows no file outside the build or of another type, and does not serve the page as an asset', () => {
    expect(assets.asset('../ui.controller.ts')).toBeUndefined();
    expect(assets.asset('notes.txt')).toBeUndefined();
    expect(assets.asset(UI_PAGE_NAME)).toBeUndefined();
  });
});

describe('given a viewer that was never built', () => {
  it('says in one line how to build it, and serves nothing', () => {
    const directory = join(tmpdir(), 'strata-ui-never-built');
    const assets = new UiAssets(directory);
    expect(assets.missing()).toMatch(
      /^the audit viewer is not built \(no .*index\.html\): run `npm run build:viewer`$/,
    );
    expect(assets.page()).toBeUndefined();
    expect(assets.asset('main.js')).toBeUndefined();
  });

  it('answers 503 unavailable for the page and its assets, naming the command and no path', () => {
    const controller = new UiController(new UiAssets(join(tmpdir(), 'strata-ui-never-built')));
    const request = { headers: {}, method: 'GET' } as IncomingMessage;
    const response = {} as ServerResponse;
    for (const serve of [
      () => controller.page(request, response),
      () => controller.asset('main.js', request, response),
    ]) {
      let thrown: unknown;
      try {
        serve();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect(thrown).toMatchObject({
        code: 'unavailable',
        message: 'the audit viewer is not built: run `npm run build:viewer`',
      });
    }
  });
});
