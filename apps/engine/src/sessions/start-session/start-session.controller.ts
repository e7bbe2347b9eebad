// POST /sessions: start a session (the StartSession command) for the caller's tenant; starting the
// same id again with the same header answers the first answer.
import { Controller, Inject, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineConfig } from '../../config/engine-config';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { readJsonBody } from '../../api/request/request-input';
import { startSessionBody } from '../../api/sessions/session-requests.schemas';
import { startSessionResponse, revisionText } from '../../api/sessions/session-responses.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { StartSessionCommand } from './start-session.command';

@Controller('sessions')
@UseGuards(TenantGuard)
export class StartSessionController {
  constructor(
    private readonly sessions: TenantSessions,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  @Post()
  async start(
    @Principal() principal: TenantPrincipal,
    @Req() request: IncomingMessage,
    @Res({ passthrough: true }) response: ServerResponse,
  ) {
    const body = await readJsonBody(request, startSessionBody, this.config.jsonBodyLimitBytes);
    if (body.sessionId !== undefined) {
      await this.sessions.requireAvailable(principal, body.sessionId);
      await this.sessions.requireNotErased(principal, body.sessionId, false);
    }
    const result = await this.sessions.execute(
      principal,
      (context) => new StartSessionCommand(body, context),
    );
    await this.sessions.requireAvailable(principal, result.sessionId);
    response.statusCode = result.alreadyStarted ? 200 : 201;
    return { ...result, revision: revisionText(result.revision) };
  }
}

export const startSessionOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions',
    operationId: 'startSession',
    tag: 'sessions',
    summary: 'Start a session',
    description:
      'Opens the stream `session-<id>` with a v3 header. Starting the same id again with the same ' +
      '`cwd`, `title` and `parentSession` writes nothing and answers 200 with the first answer; with ' +
      'others it answers 409 (`reason: idempotency_mismatch`).',
    body: { schema: startSessionBody },
    responses: {
      201: { description: 'Started', schema: startSessionResponse },
      200: { description: 'Already started with this id', schema: startSessionResponse },
    },
    problems: ['validation', 'forbidden', 'conflict', 'payload_too_large'],
  },
];
