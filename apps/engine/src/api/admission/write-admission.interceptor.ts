// Every write request of the API (any method but GET, HEAD and OPTIONS) is admitted here, after
// `TenantGuard` named its tenant and before its handler reads its body; its place is given back
// when the handler ends, however it ends. Bound as a global interceptor, so no write route can
// be left out. A route whose body is a session file says so with `@WriteBody('session_file')`:
// it counts against the import limit instead of the JSON one.
import {
  Inject,
  Injectable,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { finalize, type Observable } from 'rxjs';
import type { EngineConfig } from '../../config/engine-config';
import { ENGINE_CONFIG } from '../http-tokens';
import { guardedPrincipalOf, isWriteRequest } from '../tenant.guard';
import { WriteAdmissions } from './write-admissions.service';

/** What a write route's body is: JSON (`STRATA_BODY_LIMIT`) or a session file (`STRATA_IMPORT_BODY_LIMIT`). */
export type WriteBodyKind = 'json' | 'session_file';

/** Marks a write route whose body is not JSON. */
export const WriteBody = Reflector.createDecorator<WriteBodyKind>();

@Injectable()
export class WriteAdmissionInterceptor implements NestInterceptor {
  constructor(
    private readonly admissions: WriteAdmissions,
    private readonly reflector: Reflector,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<IncomingMessage>();
    if (!isWriteRequest(request)) return next.handle();
    const principal = guardedPrincipalOf(request);
    if (principal === undefined) {
      throw new Error(`${request.method ?? '?'} ${request.url ?? '?'} writes without TenantGuard`);
    }
    const kind = this.reflector.get(WriteBody, context.getHandler()) ?? 'json';
    const limitBytes =
      kind === 'session_file' ? this.config.importBodyLimitBytes : this.config.jsonBodyLimitBytes;
    const release = await this.admissions.admit(principal.tenant, request, limitBytes);
    return next.handle().pipe(finalize(release));
  }
}
