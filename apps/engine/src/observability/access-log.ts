// The access log (`STRATA_ACCESS_LOG=on`): one line per answered request, at level `log` in
// context `Access`, written when the answer is finished (or the client went away): method, path
// without its query (queries may hold search text), status, milliseconds and bytes sent. In JSON
// the fields are the line's `message` object; in text, one readable line.
import { Logger } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineLogFormat } from './engine-logger';
import { currentRequest } from './request-context';

type Middleware = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

export interface AccessRecord {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly bytes: number;
  /** False when the client went away before the answer was finished. */
  readonly completed: boolean;
}

export function accessLogMiddleware(format: EngineLogFormat, logger = new Logger('Access')): Middleware {
  return (request, response, next) => {
    const started = performance.now();
    // the answer finishes in the socket's own async context: the request's is taken now
    const context = currentRequest();
    let logged = false;
    const log = (completed: boolean): void => {
      if (logged) return;
      logged = true;
      const record: AccessRecord = {
        method: request.method ?? 'UNKNOWN',
        path: (request.url ?? '/').split('?')[0] ?? '/',
        status: response.statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        bytes: response.socket?.bytesWritten ?? 0,
        completed,
      };
      if (format === 'json') logger.log({ ...record, ...context });
      else
        logger.log(
          `${record.method} ${record.path} ${record.status} ${record.durationMs} ms` +
            (context === undefined ? '' : ` ${context.requestId}`) +
            (completed ? '' : ' (client went away)'),
        );
    };
    response.once('finish', () => log(true));
    response.once('close', () => log(response.writableFinished));
    next();
  };
}
