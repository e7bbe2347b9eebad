// POST /sessions/{id}/abort: abort the session's running compaction or branch-summary attempts
// (the AbortCompaction command) for the caller's tenant.
import { Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { SessionCommandInputs } from '../../api/sessions/session-command-input.service';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { abortBody, sessionPath } from '../../api/sessions/session-requests.schemas';
import { abortResponse } from '../../api/sessions/session-responses.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { AbortCompactionCommand } from './abort-compaction.command';

@Controller('sessions')
@UseGuards(TenantGuard)
export class AbortCompactionController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly inputs: SessionCommandInputs,
  ) {}

  @Post(':sessionId/abort')
  @HttpCode(200)
  async abort(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const { sessionId, body } = await this.inputs.read(principal, sessionIdText, request, abortBody);
    const result = await this.sessions.execute(
      principal,
      (context) => new AbortCompactionCommand(sessionId, body, context),
    );
    return { sessionId, abortedAttemptIds: result.abortedAttemptIds };
  }
}

export const abortCompactionOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/{sessionId}/abort',
    operationId: 'abortAttempts',
    tag: 'sessions',
    summary: 'Abort running compaction or branch-summary attempts',
    description: 'Each aborted attempt ends as cancelled; the call that started it answers that outcome.',
    pathParameters: sessionPath,
    body: { schema: abortBody },
    responses: { 200: { description: 'The attempts now aborting', schema: abortResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'payload_too_large'],
  },
];
