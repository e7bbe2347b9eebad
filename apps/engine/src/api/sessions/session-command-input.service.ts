// What every command endpoint on one session reads before it runs its command: the session id of
// the path, the JSON body checked against the endpoint's schema (within the engine's body limit),
// and that the session is the caller's tenant's (404 otherwise, 410 once erased). In that order,
// so a malformed request is refused before the store is read.
import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import type { EngineConfig } from '../../config/engine-config';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { ENGINE_CONFIG } from '../http-tokens';
import { parseParameter, readJsonBody } from '../request/request-input';
import { TenantSessions } from '../tenant-sessions.service';
import { sessionIdParameter } from './session-requests.schemas';

export interface SessionCommandInput<Body> {
  readonly sessionId: string;
  readonly body: Body;
}

@Injectable()
export class SessionCommandInputs {
  constructor(
    private readonly sessions: TenantSessions,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  /** The session id and the body of a command on one of the principal's sessions. */
  async read<Schema extends z.ZodType>(
    principal: TenantPrincipal,
    sessionIdText: string,
    request: IncomingMessage,
    schema: Schema,
  ): Promise<SessionCommandInput<z.output<Schema>>> {
    return this.readBy(principal, sessionIdText, () =>
      readJsonBody(request, schema, this.config.jsonBodyLimitBytes),
    );
  }

  /** The same, with the body read by `readBody` (a large append's, off the event loop). */
  async readBy<Body>(
    principal: TenantPrincipal,
    sessionIdText: string,
    readBody: () => Promise<Body>,
  ): Promise<SessionCommandInput<Body>> {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const body = await readBody();
    await this.sessions.requireOwned(principal, sessionId);
    return { sessionId, body };
  }
}
