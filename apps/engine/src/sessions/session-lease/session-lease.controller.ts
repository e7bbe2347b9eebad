// POST /sessions/{id}/lease takes or renews the session's writer lease; DELETE releases it
// (TakeLease / ReleaseLease), for the caller's tenant.
import { Controller, Delete, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { parseParameter, parseQuery } from '../../api/request/request-input';
import { SessionCommandInputs } from '../../api/sessions/session-command-input.service';
import {
  releaseLeaseQuery,
  sessionIdParameter,
  sessionPath,
  takeLeaseBody,
} from '../../api/sessions/session-requests.schemas';
import { leaseResponse, revisionText } from '../../api/sessions/session-responses.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { ReleaseLeaseCommand, TakeLeaseCommand } from './session-lease.command';

@Controller('sessions')
@UseGuards(TenantGuard)
export class SessionLeaseController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly inputs: SessionCommandInputs,
  ) {}

  @Post(':sessionId/lease')
  @HttpCode(200)
  async take(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const { sessionId, body } = await this.inputs.read(principal, sessionIdText, request, takeLeaseBody);
    const lease = await this.sessions.execute(
      principal,
      (context) => new TakeLeaseCommand(sessionId, body, context),
    );
    return {
      ...lease,
      expiresAt: new Date(lease.expiresAt).toISOString(),
      revision: revisionText(lease.revision),
    };
  }

  @Delete(':sessionId/lease')
  @HttpCode(204)
  async release(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ): Promise<void> {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const { token } = parseQuery(request, releaseLeaseQuery);
    await this.sessions.requireOwned(principal, sessionId);
    await this.sessions.execute(principal, (context) => new ReleaseLeaseCommand(sessionId, token, context));
  }
}

export const sessionLeaseOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/{sessionId}/lease',
    operationId: 'takeLease',
    tag: 'sessions',
    summary: "Take or renew the session's writer lease",
    description:
      'With `holder` and `ttlMs` (1,000 to 600,000) takes the lease for `ttlMs` from now, unless ' +
      "another writer's lease is in force (409 `lease_held` with its `holder` and `expiresAt`); an " +
      'expired lease is recorded as expired and the session taken. With the `token` of the lease in ' +
      'force renews it for `ttlMs` from now (the same token); a token of an ended or earlier lease ' +
      'answers 409 `lease_stale`. While a lease is in force every write to the session (entries, ' +
      'labels, compact, navigate) must bear its token as `leaseToken`. The lease is recorded in the ' +
      "session's stream (`LeaseTaken`, `LeaseRenewed`, `LeaseReleased`, `LeaseExpired`), so every engine " +
      'on the store honours it; tokens are fencing tokens (`<sequence>.<nonce>`, a later lease has a ' +
      'higher sequence, and a write with an older token is refused whenever it arrives).',
    pathParameters: sessionPath,
    body: { schema: takeLeaseBody },
    responses: { 200: { description: 'The lease in force, held by the caller', schema: leaseResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
  },
  {
    method: 'delete',
    path: '/sessions/{sessionId}/lease',
    operationId: 'releaseLease',
    tag: 'sessions',
    summary: "Release the session's writer lease",
    description:
      'Releases the lease whose `token` is given (a lease released already answers 204 again); the ' +
      "token of another writer's lease or of an earlier one answers 409 (`lease_held` / `lease_stale`).",
    pathParameters: sessionPath,
    query: releaseLeaseQuery,
    responses: { 204: { description: 'Released' } },
    problems: ['validation', 'forbidden', 'not_found', 'conflict'],
  },
];
