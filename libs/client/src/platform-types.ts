// The two platform types the client's public options name, AbortSignal and fetch, taken from the
// program that uses the client: its DOM lib's or @types/node's when it has either, else the shape
// the client relies on. So the published declarations compile with `lib: ["es2022"]` alone, and
// a caller with DOM or Node types passes its own signal and fetch as they are.

/** What the client does with a signal, for a program whose types declare no AbortSignal. */
export interface AbortSignalShape {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** A fetch, for a program whose types declare none: any function answering a promise. */
export type FetchShape = (input: never, init?: never) => Promise<unknown>;

/** The global AbortSignal where the program's types declare one, else `AbortSignalShape`. */
export type ClientAbortSignal = typeof globalThis extends { AbortSignal: { prototype: infer Signal } }
  ? Signal
  : AbortSignalShape;

/** The global fetch where the program's types declare one, else `FetchShape`. */
export type ClientFetch = typeof globalThis extends { fetch: infer Fetch } ? Fetch : FetchShape;
