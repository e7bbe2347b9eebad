// The audit viewer's shell: routes the URL fragment to the sessions list or one session, asks
// for an API key when the engine answers 401 (kept in sessionStorage for this tab), shows the
// live-stream state and toasts. Keyboard: `/` focuses the search, `?` lists the keys.
import { apiKeys, errorMessage, isUnauthorized } from './api.js';
import { element } from './dom.js';
import type { FeedState } from './event-feed.js';
import { parseRoute } from './routes.js';
import { SessionView } from './session-view.js';
import { SessionsView } from './sessions-view.js';
import type { View, ViewContext } from './view.js';

const TOAST_MS = 6_000;

function required<Found extends HTMLElement>(id: string, type: new () => Found): Found {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`the page has no #${id}`);
  return found;
}

const main = required('main', HTMLElement);
const liveStatus = required('live-status', HTMLElement);
const toasts = required('toasts', HTMLElement);
const keyDialog = required('key-dialog', HTMLDialogElement);
const keyForm = required('key-form', HTMLFormElement);
const keyInput = required('key-input', HTMLInputElement);
const keyMessage = required('key-message', HTMLElement);
const keyButton = required('key-button', HTMLButtonElement);
const helpDialog = required('help-dialog', HTMLDialogElement);

const feedCaptions: Readonly<Record<FeedState, string>> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
  unauthorized: 'not authorised',
  closed: 'offline',
};

let current: View | undefined;

const context: ViewContext = {
  reportError(error, where) {
    if (isUnauthorized(error)) {
      askForKey(
        apiKeys.current() === undefined ? 'This engine needs an API key.' : 'The API key was not accepted.',
      );
      return;
    }
    const message = errorMessage(error);
    if (where !== undefined)
      where.replaceChildren(element('span', { className: 'error-text', text: message }));
    else context.toast(message);
  },
  showFeedState(state) {
    liveStatus.dataset['state'] = state;
    liveStatus.textContent = `● ${feedCaptions[state]}`;
    if (state === 'unauthorized') askForKey('The API key was not accepted.');
  },
  toast(message) {
    const toast = element('div', { className: 'toast', text: message });
    toasts.append(toast);
    window.setTimeout(() => toast.remove(), TOAST_MS);
  },
};

function askForKey(message: string): void {
  keyMessage.textContent = message;
  keyInput.value = '';
  if (!keyDialog.open) keyDialog.showModal();
  keyInput.focus();
}

function route(rebuild = false): void {
  const next = parseRoute(location.hash);
  if (
    !rebuild &&
    next.kind === 'session' &&
    current instanceof SessionView &&
    current.element.dataset['sessionId'] === next.sessionId
  ) {
    current.update(next);
    return;
  }
  current?.dispose();
  current = next.kind === 'sessions' ? new SessionsView(context, next.text) : new SessionView(context, next);
  main.replaceChildren(current.element);
  document.title =
    next.kind === 'sessions' ? 'Sessions · Strata audit viewer' : `${next.sessionId} · Strata audit viewer`;
}

keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  if (key === '') apiKeys.forget();
  else apiKeys.remember(key);
  keyDialog.close();
  route(true);
});
keyButton.addEventListener('click', () =>
  askForKey('Enter the API key of your tenant (kept for this tab only; empty to forget it).'),
);
document.addEventListener('keydown', (event) => {
  const typing =
    event.target instanceof HTMLInputElement ||
    event.target instanceof HTMLTextAreaElement ||
    event.target instanceof HTMLSelectElement;
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === '?') {
    helpDialog.showModal();
    event.preventDefault();
  } else if (event.key === '/' && current instanceof SessionsView) {
    current.focusSearch();
    event.preventDefault();
  }
});
window.addEventListener('hashchange', () => route());
route();
