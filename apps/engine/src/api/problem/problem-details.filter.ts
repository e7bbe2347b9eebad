// The one exception filter: every error leaving a handler, a guard or the router is answered
// as `application/problem+json` from the closed set. Errors outside the set are logged.
import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, problemOf } from './problem-details';

@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpApi');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<IncomingMessage>();
    const response = http.getResponse<ServerResponse>();
    const mapped = problemOf(error);
    if (mapped.unexpected) {
      this.logger.error(
        `${request.method ?? '?'} ${request.url ?? '?'} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
    if (response.headersSent) {
      response.destroy();
      return;
    }
    const path = (request.url ?? '').split('?', 1)[0];
    const body = JSON.stringify({ ...mapped.document, ...(path ? { instance: path } : {}) });
    response.statusCode = mapped.document.status;
    for (const [name, value] of Object.entries(mapped.headers)) response.setHeader(name, value);
    response.setHeader('Content-Type', `${PROBLEM_CONTENT_TYPE}; charset=utf-8`);
    response.setHeader('Content-Length', Buffer.byteLength(body));
    response.end(body);
  }
}
