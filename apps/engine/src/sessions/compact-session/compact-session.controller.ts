// POST /sessions/{id}/compact: one manual compaction attempt (the CompactSession command) for the
// caller's tenant, answered with its single outcome.
import { Controller, HttpCode, Inject, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { SessionCommandInputs } from '../../api/sessions/session-command-input.service';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { compactBody, sessionPath } from '../../api/sessions/session-requests.schemas';
import { compactionResponse } from '../../api/sessions/session-responses.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { requireLeaseHolder } from '../../session-streams/session-leases';
import { SessionStreams } from '../../session-streams/session-streams.service';
import type { Clock } from '../../shared/clock';
import { CLOCK } from '../../shared/injection-tokens';
import { CompactSessionCommand } from './compact-session.command';

@Controller('sessions')
@UseGuards(TenantGuard)
export class CompactSessionController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly inputs: SessionCommandInputs,
    private readonly streams: SessionStreams,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Post(':sessionId/compact')
  @HttpCode(200)
  async compact(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const {
      sessionId,
      body: { leaseToken, ...options },
    } = await this.inputs.read(principal, sessionIdText, request, compactBody);
    // the attempt's events are written later by its runner: the lease is checked as the request arrives
    await requireLeaseHolder(this.streams, sessionId, leaseToken, this.clock.now());
    return this.sessions.execute(
      principal,
      (context) => new CompactSessionCommand(sessionId, options, context),
    );
  }
}

export const compactSessionOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/{sessionId}/compact',
    operationId: 'compactSession',
    tag: 'sessions',
    summary: 'Compact the session',
    description:
      'Runs one compaction attempt and answers its single outcome (completed, skipped, cancelled or failed). ' +
      'A context that fits in `compaction.keepRecentTokens` is skipped (`nothing_to_summarize`) unless ' +
      '`force` is true: then the last turn alone is kept (in a session of one turn, its last answer with the ' +
      'tool results it needs), never a tool result without its call, and `CompactionStarted` records `force: true`. ' +
      'An `attemptId` that ended answers its recorded outcome (`redelivered: true`); one used for another ' +
      'trigger, other instructions, another `force` or a branch summary answers 409 (`reason: idempotency_mismatch`). ' +
      'While a writer lease is in force the request must bear its `leaseToken` (409 `lease_held` / `lease_stale`).',
    pathParameters: sessionPath,
    body: { schema: compactBody },
    responses: { 200: { description: 'The outcome of the attempt', schema: compactionResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
  },
];
