// What the shell offers every view: reporting errors (an invalid key opens the key dialog),
// the live-stream badge, and toasts.
import type { FeedState } from './event-feed.js';

export interface ViewContext {
  /** Shows the error in `where` (or a toast); an unauthorised answer asks for a key. */
  reportError(error: unknown, where?: HTMLElement): void;
  showFeedState(state: FeedState): void;
  toast(message: string): void;
}

export interface View {
  readonly element: HTMLElement;
  dispose(): void;
}
