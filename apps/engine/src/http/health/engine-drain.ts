// A draining stop (Kubernetes semantics, issue 26): once a stop begins, `/ready` answers 503
// `draining` so that load balancers take the engine out of rotation, every new request but the
// probes is answered 503 with `Retry-After` and `Connection: close` (never left unanswered, as
// when the listener closes at once), and the requests already in progress run to their end. The
// stop waits for them within its deadline; event streams are not waited for (they last as long
// as their clients, which resume with Last-Event-ID on another engine).
import { Injectable } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { problemStatuses, problemTitles } from '../../api/problem/api-errors';
import { PROBLEM_CONTENT_TYPE } from '../../api/problem/problem-details';

/** The seconds a client is told to wait before trying again (on another engine, or this one restarted). */
export const DRAINING_RETRY_AFTER_SECONDS = 5;

/** Paths answered while draining: the probes, so that orchestrators see the engine stop. */
const PROBE_PATHS = new Set(['/health', '/ready']);

type Middleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

function isEventStream(response: ServerResponse): boolean {
  return String(response.getHeader('content-type') ?? '').startsWith('text/event-stream');
}

@Injectable()
export class EngineDrain {
  private since: number | undefined;
  private readonly inProgress = new Set<ServerResponse>();
  private idleWaiters: (() => void)[] = [];

  /** Whether a stop has begun. */
  get draining(): boolean {
    return this.since !== undefined;
  }

  /** Requests in progress that a stop waits for (event streams are not counted). */
  get requestsInProgress(): number {
    let count = 0;
    for (const response of this.inProgress) if (!isEventStream(response)) count += 1;
    return count;
  }

  /** Begins the stop: from now on new requests are refused and `/ready` says so. */
  begin(now: number = Date.now()): void {
    this.since ??= now;
    this.wakeIfIdle();
  }

  /** Counts the requests in progress, and refuses new ones (probes aside) once draining. */
  middleware(): Middleware {
    return (request, response, next) => {
      if (this.draining && !PROBE_PATHS.has((request.url ?? '/').split('?')[0] ?? '/')) {
        request.resume();
        refuseWhileDraining(response);
        return;
      }
      this.inProgress.add(response);
      const done = (): void => {
        if (this.inProgress.delete(response)) this.wakeIfIdle();
      };
      response.once('finish', done);
      response.once('close', done);
      next();
    };
  }

  /** Resolves true once no request is in progress, false when `timeoutMs` passed first. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.requestsInProgress === 0) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((waiter) => waiter !== wake);
        resolve(false);
      }, timeoutMs);
      const wake = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.idleWaiters.push(wake);
    });
  }

  private wakeIfIdle(): void {
    if (this.idleWaiters.length === 0 || this.requestsInProgress > 0) return;
    const woken = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of woken) wake();
  }
}

function refuseWhileDraining(response: ServerResponse): void {
  const status = problemStatuses.unavailable;
  const body = JSON.stringify({
    type: '/docs#problem-unavailable',
    title: problemTitles.unavailable,
    status,
    detail: 'the engine is stopping; send the request again to another engine or once it has restarted',
    code: 'unavailable',
  });
  response.writeHead(status, {
    'Content-Type': PROBLEM_CONTENT_TYPE,
    'Content-Length': Buffer.byteLength(body),
    'Retry-After': String(DRAINING_RETRY_AFTER_SECONDS),
    Connection: 'close',
  });
  response.end(body);
}
