// POST /sessions/{id}/entries: append entries (the AppendEntries command) for the caller's tenant,
// answering the automatic compaction the append asked for, if any (compaction-waits.service.ts).
import { Controller, HttpCode, Param, Post, Req, UseGuards } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { SessionCommandInputs } from '../../api/sessions/session-command-input.service';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { appendEntriesBody, sessionPath } from '../../api/sessions/session-requests.schemas';
import { appendEntriesResponse, revisionText } from '../../api/sessions/session-responses.schemas';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import { CompactionWaits } from '../../sagas/compaction-waits.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { AppendBodyWork } from './append-body-work';
import { AppendEntriesCommand } from './append-entries.command';

@Controller('sessions')
@UseGuards(TenantGuard)
export class AppendEntriesController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly inputs: SessionCommandInputs,
    private readonly waits: CompactionWaits,
    private readonly bodies: AppendBodyWork,
  ) {}

  @Post(':sessionId/entries')
  @HttpCode(200)
  async append(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const { sessionId, body } = await this.inputs.readBy(principal, sessionIdText, () =>
      this.bodies.read(request),
    );
    // the texts read off the event loop serve the seal and the store only: dropped once written
    const result = await this.sessions
      .execute(
        principal,
        (context) =>
          new AppendEntriesCommand(
            sessionId,
            body.entries,
            {
              ...(body.expectedRevision !== undefined
                ? { expectedRevision: BigInt(body.expectedRevision) }
                : {}),
              ...(body.expectedLeafId !== undefined ? { expectedLeafId: body.expectedLeafId } : {}),
              ...(body.idempotencyKey !== undefined ? { idempotencyKey: body.idempotencyKey } : {}),
              ...(body.leaseToken !== undefined ? { leaseToken: body.leaseToken } : {}),
            },
            context,
          ),
      )
      .finally(() => this.bodies.release(body));
    const { eventIds, sessionAfter, ...answer } = result;
    const appended = eventIds.flatMap((eventId, index) => {
      const entry = body.entries[index];
      return entry === undefined ? [] : [{ eventId, entry }];
    });
    const compaction = await this.waits.askedBy(sessionId, principal.tenant, appended, sessionAfter);
    return { ...answer, revision: revisionText(result.revision), compaction: compaction ?? null };
  }
}

export const appendEntriesOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/{sessionId}/entries',
    operationId: 'appendEntries',
    tag: 'sessions',
    summary: 'Append entries',
    description:
      'Appends complete entries (ids, parents and timestamps chosen by the writer) as one atomic batch. ' +
      '`expectedRevision` / `expectedLeafId` make it conditional (409 when the session moved). ' +
      'An `idempotencyKey` used before with the same entries writes nothing and answers the first ' +
      'answer (its entry ids, leaf and revision); with other entries it answers 409 ' +
      '(`reason: idempotency_mismatch`) and writes nothing; of concurrent first requests with one key and ' +
      'the same entries, exactly one answers `alreadyAppended: false`. `compaction` names the automatic ' +
      'compaction the append asked for (an answer over the threshold that ends the turn, a prompt ' +
      'after one, or an answer that failed with a context overflow) and how it has ended so far: before ' +
      'appending again, read the context with `waitForCompaction` (docs/agent-hosts.md). A 409 names its ' +
      '`reason`: `leaf_conflict` (with `currentLeafId` and `currentRevision`: read the context there and ' +
      'decide again), `tool_result_unpaired` (a tool result answers no call pending at its parent; ' +
      '`toolCallId`), `lease_held` / `lease_stale` (the writer lease, POST /sessions/{id}/lease).',
    pathParameters: sessionPath,
    body: { schema: appendEntriesBody },
    responses: {
      200: {
        description: 'Appended (or already appended with this idempotency key)',
        schema: appendEntriesResponse,
      },
    },
    problems: ['validation', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
  },
];
