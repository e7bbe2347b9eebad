// Who a log line is about: each request gets an id (the caller's `X-Request-Id` when it is a
// reasonable one, else a new UUID v7), answered back in `X-Request-Id`, and the W3C trace context
// the caller sent (`traceparent`: its trace id and its span's id), kept for everything the request
// runs in an AsyncLocalStorage so that the JSON log lines written meanwhile carry them.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createUuidV7Generator } from '@strata/event-store';

export interface RequestContext {
  readonly requestId: string;
  /** The caller's trace id (32 hex digits), from `traceparent`. */
  readonly traceId?: string;
  /** The caller's span id (16 hex digits), from `traceparent`: the parent of this request's work. */
  readonly spanId?: string;
}

export const REQUEST_ID_HEADER = 'x-request-id';

const storage = new AsyncLocalStorage<RequestContext>();
const newRequestId = createUuidV7Generator();
/** Visible ASCII, at most 128 characters: anything else is replaced by a fresh id. */
const CALLER_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
/** W3C Trace Context, version 00: `00-<trace id>-<parent id>-<flags>`; all-zero ids are invalid. */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The context of the request this code runs for, if any. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** The trace context of a `traceparent` header, when it is a valid version-00 one. */
export function traceOf(
  header: string | string[] | undefined,
): { traceId: string; spanId: string } | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, traceId, spanId] = match as unknown as [string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId };
}

type Middleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

/**
 * Gives each request its id (answered in `X-Request-Id`), and with `keepContext` runs the rest of
 * its handling inside its context, for the log lines that carry it. Only then: on Node 20 the
 * first `run` of an AsyncLocalStorage turns on promise hooks for the whole process, which every
 * promise then pays (Node 24 keeps the context without them).
 */
export function requestContextMiddleware(options: { readonly keepContext: boolean }): Middleware {
  return (request, response, next) => {
    const given = request.headers[REQUEST_ID_HEADER];
    const requestId = typeof given === 'string' && CALLER_REQUEST_ID.test(given) ? given : newRequestId();
    response.setHeader(REQUEST_ID_HEADER, requestId);
    if (!options.keepContext) {
      next();
      return;
    }
    const trace = traceOf(request.headers['traceparent']);
    storage.run({ requestId, ...trace }, next);
  };
}
