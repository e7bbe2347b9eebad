// POST /sessions/{id}/navigate: move the leaf, optionally summarising the branch left behind (the
// NavigateSession command), for the caller's tenant.
import { Controller, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { SessionCommandInputs } from '../../api/sessions/session-command-input.service';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { navigateBody, sessionPath } from '../../api/sessions/session-requests.schemas';
import { navigationResponse } from '../../api/sessions/session-responses.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { requireLeaseHolder } from '../../session-streams/session-leases';
import { SessionStreams } from '../../session-streams/session-streams.service';
import type { Clock } from '../../shared/clock';
import { CLOCK } from '../../shared/injection-tokens';
import { NavigateSessionCommand } from './navigate-session.command';

@Controller('sessions')
@UseGuards(TenantGuard)
export class NavigateSessionController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly inputs: SessionCommandInputs,
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(':sessionId/navigate')
  @HttpCode(200)
  async navigate(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const {
      sessionId,
      body: { targetId, leaseToken, ...options },
    } = await this.inputs.read(principal, sessionIdText, request, navigateBody);
    // the move is written later by the attempt runner: the lease is checked as the request arrives
    await requireLeaseHolder(this.streams, sessionId, leaseToken, this.clock.now());
    return this.sessions.execute(
      principal,
      (context) => new NavigateSessionCommand(sessionId, targetId, options, context),
    );
  }
}

export const navigateSessionOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/{sessionId}/navigate',
    operationId: 'navigateSession',
    tag: 'sessions',
    summary: 'Move the leaf (optionally summarising the branch left behind)',
    description:
      'An `attemptId` of a summary that ended answers its recorded outcome (`redelivered: true`); one ' +
      'used for another target, other instructions, no summary or a compaction answers 409 ' +
      '(`reason: idempotency_mismatch`). While a writer lease is in force the request must bear its ' +
      '`leaseToken` (409 `lease_held` / `lease_stale`).',
    pathParameters: sessionPath,
    body: { schema: navigateBody },
    responses: { 200: { description: 'The outcome of the navigation', schema: navigationResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
  },
];
