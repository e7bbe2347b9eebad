// pi session files in and out, and integrity checks: import a JSON Lines file (any version,
// migrated to v3) as a session of the caller's tenant, export a session as a v3 file, and
// verify the hash chain of one session or of every session of the tenant.
import { Controller, Get, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  exportSession,
  prepareSessionImport,
  verifyStream,
  writeSessionImport,
  type EventStore,
  type StreamVerification,
} from '@strata/event-store';
import { entryWeight, sessionStreamName } from '@strata/session';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { EngineConfig } from '../../config/engine-config';
import { EVENT_STORE } from '../../shared/injection-tokens';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { ReadModels } from '../../read-side/read-models.service';
import {
  parseParameter,
  parseQuery,
  readJsonLinesBody,
  sessionFileMediaTypes,
} from '../../api/request/request-input';
import { MAX_SESSION_PAGE, importQuery, sessionIdParameter } from './session-requests.schemas';
import { importResponse, verifySessionResponse, verifyTenantResponse } from './session-responses.schemas';
import { TenantSessions, commandContextOf } from '../../api/tenant-sessions.service';
import { actorMetadataOf } from '../../shared/command-context';
import { SessionTooLargeError } from '../../shared/session-size';

export const SESSION_FILE_MEDIA_TYPE = 'application/x-ndjson';

function verificationView(sessionId: string, verification: StreamVerification) {
  return verification.ok
    ? { sessionId, ok: true, events: verification.events, headHash: verification.headHash, brokenAt: null }
    : {
        sessionId,
        ok: false,
        events: verification.verifiedEvents,
        headHash: null,
        brokenAt: { ...verification.brokenAt, revision: verification.brokenAt.revision.toString() },
      };
}

@Controller()
@UseGuards(TenantGuard)
export class SessionFilesController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly readModels: ReadModels,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  @Post('sessions/import')
  async importFile(
    @Principal() principal: TenantPrincipal,
    @Req() request: IncomingMessage,
    @Res({ passthrough: true }) response: ServerResponse,
  ) {
    const query = parseQuery(request, importQuery);
    const file = await readJsonLinesBody(request, this.config.importBodyLimitBytes);
    const prepared = prepareSessionImport(file, { lenient: query.lenient });
    await this.sessions.requireAvailable(principal, prepared.header.id);
    await this.sessions.requireNotErased(principal, prepared.header.id, query.allowErased);
    const weight = prepared.entries.reduce((total, entry) => total + entryWeight(entry), 0);
    const { maxSessionEntries } = this.config.foldCache;
    if (weight > maxSessionEntries)
      throw new SessionTooLargeError(prepared.header.id, weight, maxSessionEntries);
    const report = await writeSessionImport(this.store, prepared, {
      tenant: principal.tenant,
      metadata: actorMetadataOf(commandContextOf(principal)),
      reviveErased: query.allowErased,
    });
    response.statusCode = report.outcome === 'imported' ? 201 : 200;
    const { streamId: _streamId, ...rest } = report;
    return { ...rest, revision: report.revision.toString() };
  }

  @Get('sessions/:sessionId/export')
  async exportFile(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    await this.sessions.requireOwned(principal, sessionId);
    const text = await exportSession(this.store, sessionId);
    response.statusCode = 200;
    response.setHeader('Content-Type', `${SESSION_FILE_MEDIA_TYPE}; charset=utf-8`);
    response.setHeader(
      'Content-Disposition',
      `attachment; filename="${encodeURIComponent(sessionId)}.jsonl"`,
    );
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
  }

  @Get('sessions/:sessionId/verify')
  async verifySession(@Principal() principal: TenantPrincipal, @Param('sessionId') sessionIdText: string) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    await this.sessions.requireOwned(principal, sessionId);
    return verificationView(sessionId, await verifyStream(this.store, sessionStreamName(sessionId)));
  }

  @Get('verify')
  async verifyTenant(@Principal() principal: TenantPrincipal) {
    await this.readModels.requireReached(await this.readModels.storeHead());
    const broken: { sessionId: string; revision: string; eventId: string; reason: string }[] = [];
    let sessions = 0;
    let events = 0;
    let cursor: string | undefined;
    do {
      const page = await this.readModels.projections.catalog.listSessions({
        tenant: principal.tenant,
        limit: MAX_SESSION_PAGE,
        ...(cursor !== undefined ? { cursor } : {}),
      });
      for (const session of page.items) {
        const view = verificationView(
          session.sessionId,
          await verifyStream(this.store, sessionStreamName(session.sessionId)),
        );
        sessions += 1;
        events += view.events;
        if (view.brokenAt !== null) broken.push({ sessionId: session.sessionId, ...view.brokenAt });
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return { ok: broken.length === 0, sessions, events, broken };
  }
}

const sessionPath = { sessionId: sessionIdParameter };

export const sessionFileOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/import',
    operationId: 'importSession',
    tag: 'files',
    summary: 'Import a pi session file (JSON Lines, v1 to v3)',
    description:
      'Written in one atomic append; importing the same file again answers 200 `unchanged`. ' +
      'A file whose session is stored with other content answers 409.',
    query: importQuery,
    body: {
      mediaTypes: sessionFileMediaTypes,
      schema: z.string().describe('the session file: a header line, then one entry per line'),
    },
    responses: {
      201: { description: 'Imported', schema: importResponse },
      200: { description: 'Already stored exactly so', schema: importResponse },
    },
    problems: ['validation', 'forbidden', 'conflict', 'payload_too_large'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/export',
    operationId: 'exportSession',
    tag: 'files',
    summary: 'Export the session as a pi v3 file',
    pathParameters: sessionPath,
    responses: {
      200: { description: 'The session file', schema: z.string(), mediaType: SESSION_FILE_MEDIA_TYPE },
    },
    problems: ['validation', 'not_found'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/verify',
    operationId: 'verifySession',
    tag: 'integrity',
    summary: "Verify the session's hash chain",
    pathParameters: sessionPath,
    responses: {
      200: { description: 'The verification (ok or where it broke)', schema: verifySessionResponse },
    },
    problems: ['validation', 'not_found'],
  },
  {
    method: 'get',
    path: '/verify',
    operationId: 'verifyTenant',
    tag: 'integrity',
    summary: "Verify the hash chains of every session of the caller's tenant",
    responses: { 200: { description: 'The verification', schema: verifyTenantResponse } },
    problems: ['unavailable'],
  },
];
