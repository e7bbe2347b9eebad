// POST /sessions/{id}/labels: label an entry, or clear its label (the SetLabel command), for the
// caller's tenant.
import { Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { SessionCommandInputs } from '../../api/sessions/session-command-input.service';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { setLabelBody, sessionPath } from '../../api/sessions/session-requests.schemas';
import { setLabelResponse, revisionText } from '../../api/sessions/session-responses.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { SetLabelCommand } from './set-label.command';

@Controller('sessions')
@UseGuards(TenantGuard)
export class SetLabelController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly inputs: SessionCommandInputs,
  ) {}

  @Post(':sessionId/labels')
  @HttpCode(200)
  async label(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const { sessionId, body } = await this.inputs.read(principal, sessionIdText, request, setLabelBody);
    const result = await this.sessions.execute(
      principal,
      (context) =>
        new SetLabelCommand(
          sessionId,
          body.targetId,
          body.label ?? undefined,
          {
            ...(body.idempotencyKey !== undefined ? { idempotencyKey: body.idempotencyKey } : {}),
            ...(body.leaseToken !== undefined ? { leaseToken: body.leaseToken } : {}),
          },
          context,
        ),
    );
    return { ...result, revision: revisionText(result.revision) };
  }
}

export const setLabelOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/{sessionId}/labels',
    operationId: 'setLabel',
    tag: 'sessions',
    summary: 'Label an entry (an empty label clears it)',
    description:
      'An `idempotencyKey` used before for the same target and label writes nothing and answers the ' +
      'label entry written then; for another answers 409 (`reason: idempotency_mismatch`).',
    pathParameters: sessionPath,
    body: { schema: setLabelBody },
    responses: { 200: { description: 'The label entry written', schema: setLabelResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
  },
];
