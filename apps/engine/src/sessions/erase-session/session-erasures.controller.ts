// Audited erasure over HTTP (issue 14): `DELETE /sessions/{id}` for a key with the admin role of
// the session's tenant, and `GET /erasures`, the tenant's erasure records for the audit.
import { Controller, Delete, Get, Inject, Param, Req, UseGuards } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import type { EngineConfig } from '../../config/engine-config';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { forbidden, invalidInput } from '../../api/problem/api-errors';
import { parseParameter, parseQuery, readJsonBody } from '../../api/request/request-input';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { SessionErasures } from './session-erasures.service';
import { erasureReasonProblem, MAX_ERASURE_REASON_LENGTH } from '../../shared/session-erasure';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { sessionIdParameter, sessionPath } from '../../api/sessions/session-requests.schemas';

const MAX_ERASURE_PAGE = 1_000;
const DEFAULT_ERASURE_PAGE = 100;

const reasonText = z
  .string()
  .max(MAX_ERASURE_REASON_LENGTH)
  .describe(`why the session is erased (recorded; 1 to ${MAX_ERASURE_REASON_LENGTH} characters)`);

export const eraseBody = z.strictObject({ reason: reasonText.optional() });
export const eraseQuery = z.strictObject({ reason: reasonText.optional() });
export const erasuresQuery = z.strictObject({
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_ERASURE_PAGE).optional(),
});

export const erasureRecordResponse = z
  .object({
    sessionId: z.string(),
    streamId: z.string(),
    actor: z
      .string()
      .describe(
        "who erased it: the admin key's name, `strata erase --actor` (`strata-cli:<user>` by default) or `strata-retention`",
      ),
    reason: z.string(),
    tenant: z.string().optional(),
    erasedAt: z.string().describe('ISO time of the erasure'),
    eventCount: z.number().int().describe('how many events were removed'),
    headHash: z.string().optional().describe("the chain hash of the session's last event"),
    headRevision: z.string().optional().describe("the revision of the session's last event (decimal)"),
  })
  .describe('An erasure record: who, when, why and how much; never any content of the session');

export const erasureListResponse = z.object({
  items: z.array(erasureRecordResponse),
  total: z.number().int(),
  offset: z.number().int(),
  limit: z.number().int(),
});

@Controller()
@UseGuards(TenantGuard)
export class SessionErasuresController {
  constructor(
    private readonly erasures: SessionErasures,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  @Delete('sessions/:sessionId')
  async erase(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    if (principal.access !== 'admin') {
      throw forbidden('erasing a session needs an API key with the admin role (tenant:name:key:admin)');
    }
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const query = parseQuery(request, eraseQuery);
    const body = await readJsonBody(request, eraseBody, this.config.jsonBodyLimitBytes);
    const reason = body.reason ?? query.reason;
    const problem = erasureReasonProblem(reason);
    if (problem !== undefined || reason === undefined) {
      throw invalidInput('the erasure is not valid', [
        { path: 'body.reason', message: problem ?? 'a reason is required' },
      ]);
    }
    return this.erasures.erase(sessionId, { actor: principal.actor, reason, tenant: principal.tenant });
  }

  @Get('erasures')
  async list(@Principal() principal: TenantPrincipal, @Req() request: IncomingMessage) {
    const query = parseQuery(request, erasuresQuery);
    return this.erasures.list(principal.tenant, query.offset ?? 0, query.limit ?? DEFAULT_ERASURE_PAGE);
  }
}

export const sessionErasureOperations: readonly ApiOperation[] = [
  {
    method: 'delete',
    path: '/sessions/{sessionId}',
    operationId: 'eraseSession',
    tag: 'sessions',
    summary: 'Erase a session (audited; a key with the admin role)',
    description:
      "Removes every event of the session from the store (SQLite rows; an EventStoreDB tombstone) and makes every read model of every engine on the store forget it; leaves an erasure record (who, when, why, event count, the last head hash and revision), which the answer is. `reason` (required) in the JSON body or the query. Only a key with the admin role of the session's tenant may (403 otherwise, also without keys); another tenant's session is not found (404); a session erased already answers 410 with its record.",
    pathParameters: sessionPath,
    query: eraseQuery,
    body: { schema: eraseBody, required: false },
    responses: { 200: { description: 'The erasure record', schema: erasureRecordResponse } },
    problems: ['validation', 'forbidden', 'not_found', 'gone', 'payload_too_large'],
  },
  {
    method: 'get',
    path: '/erasures',
    operationId: 'listErasures',
    tag: 'audit',
    summary: "The tenant's erasure records, oldest first",
    description:
      'Every session erasure of the tenant (`DELETE /sessions/{id}`, `strata erase`, retention), paged by `offset` and `limit` (at most 1,000, 100 by default).',
    query: erasuresQuery,
    responses: { 200: { description: 'The erasure records', schema: erasureListResponse } },
    problems: ['validation'],
  },
];
