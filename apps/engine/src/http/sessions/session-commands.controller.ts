// The write side of the sessions API: start, append, compact, navigate, abort and label, each a
// command of the engine run on behalf of the caller's tenant.
import { Controller, HttpCode, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineConfig } from '../../config/engine-config';
import { AbortCompactionCommand } from '../../sessions/abort-compaction/abort-compaction.command';
import { AppendEntriesCommand } from '../../sessions/append-entries/append-entries.command';
import { CompactSessionCommand } from '../../sessions/compact-session/compact-session.command';
import { NavigateSessionCommand } from '../../sessions/navigate-session/navigate-session.command';
import { SetLabelCommand } from '../../sessions/set-label/set-label.command';
import { StartSessionCommand } from '../../sessions/start-session/start-session.command';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { parseParameter, readJsonBody } from '../../api/request/request-input';
import {
  abortBody,
  appendEntriesBody,
  compactBody,
  navigateBody,
  sessionIdParameter,
  setLabelBody,
  startSessionBody,
} from './session-requests.schemas';
import {
  abortResponse,
  appendEntriesResponse,
  compactionResponse,
  navigationResponse,
  setLabelResponse,
  startSessionResponse,
} from './session-responses.schemas';
import { TenantSessions } from '../../api/tenant-sessions.service';
import { CompactionWaits } from '../../sagas/compaction-waits.service';

const revisionText = (revision: bigint | null): string | null =>
  revision === null ? null : revision.toString();
const sessionPath = { sessionId: sessionIdParameter };

@Controller('sessions')
@UseGuards(TenantGuard)
export class SessionCommandsController {
  constructor(
    private readonly sessions: TenantSessions,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly waits: CompactionWaits,
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

  @Post(':sessionId/entries')
  @HttpCode(200)
  async append(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const body = await readJsonBody(request, appendEntriesBody, this.config.jsonBodyLimitBytes);
    await this.sessions.requireOwned(principal, sessionId);
    const result = await this.sessions.execute(
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
          },
          context,
        ),
    );
    const { eventIds, ...answer } = result;
    const appended = eventIds.flatMap((eventId, index) => {
      const entry = body.entries[index];
      return entry === undefined ? [] : [{ eventId, entry }];
    });
    const compaction = await this.waits.askedBy(sessionId, principal.tenant, appended);
    return { ...answer, revision: revisionText(result.revision), compaction: compaction ?? null };
  }

  @Post(':sessionId/compact')
  @HttpCode(200)
  async compact(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const body = await readJsonBody(request, compactBody, this.config.jsonBodyLimitBytes);
    await this.sessions.requireOwned(principal, sessionId);
    return this.sessions.execute(principal, (context) => new CompactSessionCommand(sessionId, body, context));
  }

  @Post(':sessionId/navigate')
  @HttpCode(200)
  async navigate(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const { targetId, ...options } = await readJsonBody(
      request,
      navigateBody,
      this.config.jsonBodyLimitBytes,
    );
    await this.sessions.requireOwned(principal, sessionId);
    return this.sessions.execute(
      principal,
      (context) => new NavigateSessionCommand(sessionId, targetId, options, context),
    );
  }

  @Post(':sessionId/abort')
  @HttpCode(200)
  async abort(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const body = await readJsonBody(request, abortBody, this.config.jsonBodyLimitBytes);
    await this.sessions.requireOwned(principal, sessionId);
    const result = await this.sessions.execute(
      principal,
      (context) => new AbortCompactionCommand(sessionId, body, context),
    );
    return { sessionId, abortedAttemptIds: result.abortedAttemptIds };
  }

  @Post(':sessionId/labels')
  @HttpCode(200)
  async label(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const body = await readJsonBody(request, setLabelBody, this.config.jsonBodyLimitBytes);
    await this.sessions.requireOwned(principal, sessionId);
    const result = await this.sessions.execute(
      principal,
      (context) =>
        new SetLabelCommand(
          sessionId,
          body.targetId,
          body.label ?? undefined,
          body.idempotencyKey !== undefined ? { idempotencyKey: body.idempotencyKey } : {},
          context,
        ),
    );
    return { ...result, revision: revisionText(result.revision) };
  }
}

export const sessionCommandOperations: readonly ApiOperation[] = [
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
      '(`reason: idempotency_mismatch`) and writes nothing. `compaction` names the automatic ' +
      'compaction the append asked for (an answer over the threshold that ends the turn, a prompt ' +
      'after one, or a context overflow): before appending again, read the context with ' +
      '`waitForCompaction` (docs/agent-hosts.md).',
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
      'trigger, other instructions, another `force` or a branch summary answers 409 (`reason: idempotency_mismatch`).',
    pathParameters: sessionPath,
    body: { schema: compactBody },
    responses: { 200: { description: 'The outcome of the attempt', schema: compactionResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
  },
  {
    method: 'post',
    path: '/sessions/{sessionId}/navigate',
    operationId: 'navigateSession',
    tag: 'sessions',
    summary: 'Move the leaf (optionally summarising the branch left behind)',
    description:
      'An `attemptId` of a summary that ended answers its recorded outcome (`redelivered: true`); one ' +
      'used for another target, other instructions, no summary or a compaction answers 409 ' +
      '(`reason: idempotency_mismatch`).',
    pathParameters: sessionPath,
    body: { schema: navigateBody },
    responses: { 200: { description: 'The outcome of the navigation', schema: navigationResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'conflict', 'payload_too_large'],
  },
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
