// The read side of the sessions API: the sessions list (catalog), one session, its context
// (current leaf, any leaf, or as of a global position), tree, entries, and the audit of its
// compaction and branch-summary attempts, and its context size at each turn (the viewer's chart).
// Reads wait for the projections to reach the latest
// write, so a client reads what it has just written.
import { Controller, Get, Inject, Param, Req, UseGuards } from '@nestjs/common';
import { SessionNotFoundError } from '@strata/session-files';
import { UnknownEntryError } from '@strata/projections';
import { pathToEntry } from '@strata/session';
import type { IncomingMessage } from 'node:http';
import type { EngineTemplates } from '../../shared/engine-templates';
import { ENGINE_SETTINGS, ENGINE_TEMPLATES } from '../../shared/injection-tokens';
import type { EngineSettings } from '../../settings/engine-settings.schema';
import { contextSizesOf } from '../../read-side/context-sizes';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { ReadModels } from '../../read-side/read-models.service';
import { parseParameter, parseQuery } from '../../api/request/request-input';
import {
  attemptsQuery,
  contextQuery,
  entriesQuery,
  listSessionsQuery,
  MAX_COMPACTION_WAIT_MS,
  sessionIdParameter,
  sessionPath,
} from '../../api/sessions/session-requests.schemas';
import {
  attemptListResponse,
  contextResponse,
  contextSizesResponse,
  entriesResponse,
  sessionDetailResponse,
  sessionListResponse,
  treeResponse,
} from '../../api/sessions/session-responses.schemas';
import { auditAttemptView, catalogSessionView, contextView, treeView } from './session-views.mapper';
import { TenantSessions } from '../../api/tenant-sessions.service';
import { searchSessions, sessionSearchResponse } from './session-search';
import { z } from 'zod';
import { invalidInput, unavailable } from '../../api/problem/api-errors';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { EngineConfig } from '../../config/engine-config';
import { CompactionWaits } from '../../sagas/compaction-waits.service';
import { TenantAdmissions } from '../../shared/tenant-admissions';

export const DEFAULT_ENTRY_PAGE = 100;

@Controller()
@UseGuards(TenantGuard)
export class SessionQueriesController {
  /** The context reads waiting for compactions, counted per tenant. */
  private readonly compactionWaits: TenantAdmissions;

  constructor(
    private readonly sessions: TenantSessions,
    private readonly readModels: ReadModels,
    @Inject(ENGINE_TEMPLATES) private readonly templates: EngineTemplates,
    private readonly waits: CompactionWaits,
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
  ) {
    this.compactionWaits = new TenantAdmissions(config.compactionWaitsPerTenant);
  }

  @Get('sessions')
  async list(@Principal() principal: TenantPrincipal, @Req() request: IncomingMessage) {
    const { q, ...query } = parseQuery(request, listSessionsQuery);
    await this.readModels.requireReached(await this.readModels.storeHead());
    if (q !== undefined && q.trim() !== '')
      return searchSessions(this.readModels, principal.tenant, { q, ...query });
    const page = await this.readModels.projections.catalog.listSessions({
      tenant: principal.tenant,
      ...query,
    });
    return { ...page, items: page.items.map(catalogSessionView) };
  }

  @Get('sessions/:sessionId')
  async detail(@Principal() principal: TenantPrincipal, @Param('sessionId') sessionIdText: string) {
    const sessionId = await this.ownedSession(principal, sessionIdText);
    await this.readModels.requireSession(sessionId, ['catalog', 'context']);
    const { catalog, context } = this.readModels.projections;
    const session = await catalog.findSession(principal.tenant, sessionId);
    if (session === undefined) throw new SessionNotFoundError(sessionId);
    const tree = await context.sessionTree(sessionId);
    return {
      ...catalogSessionView(session),
      header: tree.header,
      labels: Object.fromEntries(tree.labels),
      revision: tree.revision.toString(),
      position: tree.position.toString(),
    };
  }

  @Get('sessions/:sessionId/context')
  async context(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const query = parseQuery(request, contextQuery);
    if (query.waitForCompaction !== undefined && query.asOf !== undefined) {
      throw invalidInput('the query is not valid', [
        { path: 'query.waitForCompaction', message: 'a context as of a position does not wait' },
      ]);
    }
    const sessionId = await this.ownedSession(principal, sessionIdText);
    this.readModels.requireNotSetAside(sessionId, ['context']);
    const { context } = this.readModels.projections;
    if (query.asOf !== undefined) {
      const asOf = BigInt(query.asOf);
      const projected = await context.contextAsOf(sessionId, asOf, query.leaf);
      return contextView(projected, query.format, this.templates.context, asOf);
    }
    if (query.waitForCompaction === undefined) {
      const projected = await context.contextAt(sessionId, query.leaf);
      return contextView(projected, query.format, this.templates.context, undefined);
    }
    const compactionWait = await this.waitForCompactions(
      principal.tenant,
      sessionId,
      query.waitForCompaction,
      request,
    );
    const projected = await context.contextAt(sessionId, query.leaf);
    return { ...contextView(projected, query.format, this.templates.context, undefined), compactionWait };
  }

  /**
   * Waits for the session's compactions within the tenant's share of waiting reads (each holds a
   * connection, a timer and a poll of the session); a wait ends early when its client goes away.
   */
  private async waitForCompactions(
    tenant: string,
    sessionId: string,
    timeoutMs: number,
    request: IncomingMessage,
  ) {
    const release = this.compactionWaits.admit(tenant);
    if (release === undefined) {
      throw unavailable(
        `this tenant already has ${this.compactionWaits.perTenant} context reads waiting for compactions ` +
          '(STRATA_MAX_COMPACTION_WAITS_PER_TENANT); read without waitForCompaction or try again shortly',
        1,
      );
    }
    const gone = new AbortController();
    const abort = (): void => gone.abort();
    const socket = request.socket;
    if (socket.destroyed) gone.abort();
    else socket.once('close', abort);
    try {
      return await this.waits.waitUntilSettled(sessionId, timeoutMs, gone.signal);
    } finally {
      socket.off('close', abort);
      release();
    }
  }

  @Get('sessions/:sessionId/tree')
  async tree(@Principal() principal: TenantPrincipal, @Param('sessionId') sessionIdText: string) {
    const sessionId = await this.ownedSession(principal, sessionIdText);
    this.readModels.requireNotSetAside(sessionId, ['context']);
    return treeView(await this.readModels.projections.context.sessionTree(sessionId));
  }

  @Get('sessions/:sessionId/entries')
  async entries(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const query = parseQuery(request, entriesQuery);
    const sessionId = await this.ownedSession(principal, sessionIdText);
    this.readModels.requireNotSetAside(sessionId, ['context']);
    const tree = await this.readModels.projections.context.sessionTree(sessionId);
    if (query.leaf !== undefined && !tree.byId.has(query.leaf))
      throw new UnknownEntryError(sessionId, query.leaf);
    const all = query.leaf !== undefined ? pathToEntry(tree.byId, query.leaf) : tree.entries;
    const offset = query.offset ?? 0;
    const limit = query.limit ?? DEFAULT_ENTRY_PAGE;
    return {
      sessionId,
      items: all.slice(offset, offset + limit),
      total: all.length,
      offset,
      limit,
      leafId: tree.leafId,
    };
  }

  @Get('sessions/:sessionId/context-sizes')
  async contextSizes(@Principal() principal: TenantPrincipal, @Param('sessionId') sessionIdText: string) {
    const sessionId = await this.ownedSession(principal, sessionIdText);
    this.readModels.requireNotSetAside(sessionId, ['context']);
    const tree = await this.readModels.projections.context.sessionTree(sessionId);
    return {
      sessionId,
      ...contextSizesOf(tree.entries, this.settings),
      revision: tree.revision.toString(),
      position: tree.position.toString(),
    };
  }

  @Get('sessions/:sessionId/attempts')
  async sessionAttempts(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const query = parseQuery(request, attemptsQuery);
    const sessionId = await this.ownedSession(principal, sessionIdText);
    await this.readModels.requireSession(sessionId, ['audit']);
    const page = await this.readModels.projections.audit.listAttempts({
      ...query,
      tenant: principal.tenant,
      sessionId,
    });
    return { ...page, items: page.items.map(auditAttemptView) };
  }

  @Get('attempts')
  async attempts(@Principal() principal: TenantPrincipal, @Req() request: IncomingMessage) {
    const query = parseQuery(request, attemptsQuery);
    await this.readModels.requireReached(await this.readModels.storeHead());
    const page = await this.readModels.projections.audit.listAttempts({ ...query, tenant: principal.tenant });
    return { ...page, items: page.items.map(auditAttemptView) };
  }

  private async ownedSession(principal: TenantPrincipal, sessionIdText: string): Promise<string> {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    await this.sessions.requireOwned(principal, sessionId);
    return sessionId;
  }
}

export const sessionQueryOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/sessions',
    operationId: 'listSessions',
    tag: 'sessions',
    summary: "List the tenant's sessions",
    description:
      'Most recently active first; filter by text in the title or working directory; page by offset or cursor. ' +
      'With `q`, a search inside the sessions (bounded, paged by offset; each item says where it matched).',
    query: listSessionsQuery,
    responses: {
      200: {
        description: 'A page of sessions (search results with `q`)',
        schema: z.union([sessionListResponse, sessionSearchResponse]),
      },
    },
    problems: ['validation', 'unavailable'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}',
    operationId: 'getSession',
    tag: 'sessions',
    summary: 'One session: header, sizes, token usage, labels, leaf',
    pathParameters: sessionPath,
    responses: { 200: { description: 'The session', schema: sessionDetailResponse } },
    problems: ['validation', 'not_found', 'unavailable'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/context',
    operationId: 'getContext',
    tag: 'sessions',
    summary: 'The context sent to the model',
    description:
      'At the current leaf by default, at `leaf`, or as it was once the event at global position `asOf` was recorded. ' +
      '`format=llm` converts the messages to user / assistant / toolResult messages for a provider. ' +
      'In both formats an answer that failed before the model said anything (`stopReason: "error"`, no content), ' +
      'such as the one overflow recovery retries, is left out; it stays in the entries. ' +
      `\`waitForCompaction=<ms>\` (0 to ${MAX_COMPACTION_WAIT_MS}) first waits until no compaction attempt of the ` +
      'session is open and the engine has reacted to all its events (so a compaction an append just asked ' +
      'for has run), at most that long; `compactionWait` says whether it settled or timed out, and how ' +
      "each compaction attempt it saw, or of the session's newest message, ended. `repairs` lists where the " +
      'context differs from the entries on the path (synthetic tool results, results and failed answers left out). ' +
      'A tenant may have `STRATA_MAX_COMPACTION_WAITS_PER_TENANT` such reads waiting at once; more answer 503.',
    pathParameters: sessionPath,
    query: contextQuery,
    responses: { 200: { description: 'The context', schema: contextResponse } },
    problems: ['validation', 'not_found', 'unavailable'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/tree',
    operationId: 'getTree',
    tag: 'sessions',
    summary: 'The session tree (flat nodes with their children and labels)',
    pathParameters: sessionPath,
    responses: { 200: { description: 'The tree', schema: treeResponse } },
    problems: ['validation', 'not_found', 'unavailable'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/entries',
    operationId: 'listEntries',
    tag: 'sessions',
    summary: 'The entries in append order, or the path from the root to `leaf`',
    pathParameters: sessionPath,
    query: entriesQuery,
    responses: { 200: { description: 'A page of entries', schema: entriesResponse } },
    problems: ['validation', 'not_found', 'unavailable'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/context-sizes',
    operationId: 'getContextSizes',
    tag: 'sessions',
    summary: "The context size at each turn against the model's window and the compaction threshold",
    description:
      'Every assistant answer whose usage reports a context, in append order (every branch): the size as the ' +
      "model reported it (the figure the threshold check reads, not the engine's estimate), the answering " +
      "model's window and the threshold (window − `compaction.reserveTokens`) under the engine's settings with " +
      "the session's settings entries in force then; and every compaction and branch summary, placed after " +
      'the turns appended before it.',
    pathParameters: sessionPath,
    responses: { 200: { description: 'The turns and the marks', schema: contextSizesResponse } },
    problems: ['validation', 'not_found', 'unavailable'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/attempts',
    operationId: 'listSessionAttempts',
    tag: 'audit',
    summary: "The session's compaction and branch-summary attempts",
    pathParameters: sessionPath,
    query: attemptsQuery,
    responses: { 200: { description: 'A page of attempts', schema: attemptListResponse } },
    problems: ['validation', 'not_found', 'unavailable'],
  },
  {
    method: 'get',
    path: '/attempts',
    operationId: 'listAttempts',
    tag: 'audit',
    summary: "Every compaction and branch-summary attempt of the tenant's sessions",
    query: attemptsQuery,
    responses: { 200: { description: 'A page of attempts', schema: attemptListResponse } },
    problems: ['validation', 'unavailable'],
  },
];
