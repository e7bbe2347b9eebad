// The engine's signed anchors over HTTP: its public key (no API key needed: it is public, and an
// auditor needs it to check anchors), a session's anchors, and the tenant's anchors since a time,
// as JSON Lines (the format `strata anchors export` writes and `strata verify --anchors` reads).
import { Controller, Get, Param, Req, Res, UseGuards } from '@nestjs/common';
import { anchorLine, logEntryLine, type AnchorQuery } from '@strata/integrity';
import { sessionStreamName } from '@strata/session';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { EngineAnchors } from '../../anchors/engine-anchors';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { JSON_LINES_MEDIA_TYPE, writeJsonLines } from '../../api/request/json-lines-response';
import { parseParameter, parseQuery } from '../../api/request/request-input';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { TenantSessions } from '../../api/tenant-sessions.service';
import { TenantDirectory, type TenantPrincipal } from '../../tenancy/tenant-directory';
import { anchorsQuery, sessionIdParameter } from '../../api/sessions/session-requests.schemas';

export const PUBLIC_KEY_MEDIA_TYPE = 'application/x-pem-file';
export const KEY_ID_HEADER = 'x-strata-key-id';

@Controller()
export class AnchorsController {
  constructor(
    private readonly anchors: EngineAnchors,
    private readonly sessions: TenantSessions,
    private readonly directory: TenantDirectory,
  ) {}

  @Get('anchors/public-key')
  publicKey(@Res() response: ServerResponse): void {
    response.statusCode = 200;
    response.setHeader('Content-Type', `${PUBLIC_KEY_MEDIA_TYPE}; charset=utf-8`);
    response.setHeader(KEY_ID_HEADER, this.anchors.key.keyId);
    response.end(this.anchors.key.publicKeyPem);
  }

  @Get('sessions/:sessionId/anchors')
  @UseGuards(TenantGuard)
  async sessionAnchors(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    await this.sessions.requireOwned(principal, sessionId);
    const query = { streamId: sessionStreamName(sessionId), tenant: principal.tenant };
    await writeJsonLines(response, this.lines(query), `${sessionId}.anchors.jsonl`);
  }

  @Get('anchors')
  @UseGuards(TenantGuard)
  async tenantAnchors(
    @Principal() principal: TenantPrincipal,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const { since, after } = parseQuery(request, anchorsQuery);
    const query = {
      tenant: principal.tenant,
      ...(since !== undefined ? { since } : {}),
      ...(after !== undefined ? { after: BigInt(after) } : {}),
    };
    // a single-tenant engine serves its whole signed log; with API keys, each tenant its own
    // anchors (checkpoints name every tenant's sessions)
    const lines = this.directory.isSingleTenant ? this.logLines(query) : this.lines(query);
    await writeJsonLines(response, lines, 'anchors.jsonl');
  }

  private async *logLines(query: AnchorQuery): AsyncGenerator<string> {
    if (this.anchors.log === undefined) return;
    const since = query.since === undefined ? undefined : Date.parse(query.since);
    for await (const item of this.anchors.log.entries(query.after ?? 0n)) {
      if (item.source === 'unreadable') continue;
      if (since !== undefined && Date.parse(item.entry.time) < since) continue;
      yield item.source === 'chained' ? logEntryLine(item.entry) : anchorLine(item.entry);
    }
  }

  private async *lines(query: AnchorQuery): AsyncGenerator<string> {
    if (this.anchors.log === undefined) return;
    for await (const anchor of this.anchors.log.read(query)) yield anchorLine(anchor);
  }
}

const anchorLines = z
  .string()
  .describe(
    'JSON Lines, one entry of the signed log a line (decision 0018). An anchor ' +
      '`{kind: "anchor", stream, revision, headHash, position, previousHash, time, keyId, hash, signature}` is the head ' +
      "of a session stream (the revision of its last event and that event's hash); a checkpoint " +
      '(`kind: "checkpoint"`) what the whole store held; an erasure (`kind: "erasure"`) who erased which head, when ' +
      'and why. `hash` is the SHA-256 of `strata-log/1\\n` and the canonical JSON of every other field but ' +
      '`signature`, which signs `strata-log-signature/1\\n` and `hash` with Ed25519; `previousHash` is the hash of ' +
      'the entry at `position - 1`. Anchors signed before the log was chained have no `kind`, `previousHash` or ' +
      '`hash` and are signed over `strata-anchor/1\\n` and the canonical JSON of `stream`, `revision`, `headHash`, ' +
      '`time` and `keyId`. Pass the last `position` as `after` next time',
  );

export const anchorOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/anchors/public-key',
    operationId: 'anchorPublicKey',
    tag: 'integrity',
    summary: "The engine's anchor signing public key (PEM)",
    description:
      'The Ed25519 public key that checks the anchors this engine signs (`strata verify --public-key`); ' +
      `its key id is in the \`${KEY_ID_HEADER}\` header. No API key is needed.`,
    responses: {
      200: { description: 'The public key, SPKI PEM', schema: z.string(), mediaType: PUBLIC_KEY_MEDIA_TYPE },
    },
    problems: [],
    public: true,
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/anchors',
    operationId: 'sessionAnchors',
    tag: 'integrity',
    summary: "The session's signed anchors, oldest first",
    pathParameters: { sessionId: sessionIdParameter },
    responses: { 200: { description: 'The anchors', schema: anchorLines, mediaType: JSON_LINES_MEDIA_TYPE } },
    problems: ['validation', 'not_found'],
  },
  {
    method: 'get',
    path: '/anchors',
    operationId: 'tenantAnchors',
    tag: 'integrity',
    summary: "The signed log (single-tenant engine) or the caller's tenant's anchors, oldest first",
    description:
      'A single-tenant engine (no API keys) serves its whole signed log: anchors, checkpoints and erasures. With ' +
      "API keys, a tenant gets its own sessions' anchors only, since checkpoints name every tenant's sessions; the " +
      'operator exports the whole log with `strata anchors export` or keeps it through a witness.',
    query: anchorsQuery,
    responses: { 200: { description: 'The anchors', schema: anchorLines, mediaType: JSON_LINES_MEDIA_TYPE } },
    problems: ['validation'],
  },
];
