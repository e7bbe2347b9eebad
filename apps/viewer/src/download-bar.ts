// The session page's downloads: its pi file, its events file and its anchors, fetched with the
// tab's API key (a plain link would not carry it) and handed to the browser as files.
import { downloadFile, errorMessage, sessionPath, type QueryValues } from './api.js';
import { element } from './dom.js';
import type { ViewContext } from './view.js';

/** The three files of a session the viewer offers (fetched with the API key, then saved). */
const downloads: readonly {
  readonly caption: string;
  readonly suffix: string;
  readonly query: QueryValues;
  readonly name: string;
}[] = [
  { caption: 'pi session file', suffix: '/export', query: {}, name: '.jsonl' },
  { caption: 'Events file', suffix: '/export', query: { format: 'events' }, name: '.events.jsonl' },
  { caption: 'Anchors', suffix: '/anchors', query: {}, name: '.anchors.jsonl' },
];

export function downloadBar(sessionId: string, context: ViewContext): HTMLElement {
  return element('div', { className: 'toolbar downloads', attributes: { 'aria-label': 'Downloads' } }, [
    element('span', { className: 'muted', text: 'Download:' }),
    ...downloads.map((file) =>
      element('button', {
        className: 'button',
        text: file.caption,
        dataset: { download: file.name },
        on: {
          click: () =>
            void downloadFile(
              sessionPath(sessionId, file.suffix),
              file.query,
              `${sessionId}${file.name}`,
            ).then(
              (name) => context.toast(`Downloaded ${name}`),
              (error: unknown) => context.toast(`${file.caption}: ${errorMessage(error)}`),
            ),
        },
      }),
    ),
  ]);
}
