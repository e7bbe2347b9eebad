// pi session files in and out, and integrity checks: import a JSON Lines file (any version,
// migrated to v3) as a session of the caller's tenant, export a session as a v3 file or as its
// raw event log, and verify one session or every session of the tenant: the hash chain, the
// store's record of each stream's last revision, the engine's signed anchors, erasure records.
import { Controller, Get, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  exportSession,
  prepareSessionImport,
  streamEventLines,
  verifyStreamIntegrity,
  writeSessionImport,
  type EventStore,
} from '@strata/event-store';
import { SESSION_STREAM_PREFIX, entryWeight, sessionStreamName } from '@strata/session';
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
import { MAX_SESSION_PAGE, exportQuery, importQuery, sessionIdParameter } from './session-requests.schemas';
import { EngineAnchors } from '../../anchors/engine-anchors';
import { JSON_LINES_MEDIA_TYPE, writeJsonLines } from '../../api/request/json-lines-response';
import { integrityView, refusedAnchorsView } from './session-integrity';
import { importResponse, verifySessionResponse, verifyTenantResponse } from './session-responses.schemas';
import { TenantSessions, commandContextOf } from '../../api/tenant-sessions.service';
import { actorMetadataOf } from '../../shared/command-context';
import { SessionTooLargeError } from '../../shared/session-size';

export const SESSION_FILE_MEDIA_TYPE = JSON_LINES_MEDIA_TYPE;

@Controller()
@UseGuards(TenantGuard)
export class SessionFilesController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly readModels: ReadModels,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly anchors: EngineAnchors,
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
    const weight = prepared.entries.reduce((total, entry) => total + entryWeight(entry), 0);
    const { maxSessionEntries } = this.config.foldCache;
    if (weight > maxSessionEntries)
      throw new SessionTooLargeError(prepared.header.id, weight, maxSessionEntries);
    const report = await writeSessionImport(this.store, prepared, {
      tenant: principal.tenant,
      metadata: actorMetadataOf(commandContextOf(principal)),
    });
    response.statusCode = report.outcome === 'imported' ? 201 : 200;
    const { streamId: _streamId, ...rest } = report;
    return { ...rest, revision: report.revision.toString() };
  }

  @Get('sessions/:sessionId/export')
  async exportFile(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const { format } = parseQuery(request, exportQuery);
    await this.sessions.requireOwned(principal, sessionId);
    if (format === 'events') {
      const lines = streamEventLines(this.store, sessionStreamName(sessionId));
      await writeJsonLines(response, lines, `${sessionId}.events.jsonl`);
      return;
    }
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
    const streamId = sessionStreamName(sessionId);
    const index = await this.anchors.index({ streamId, tenant: principal.tenant });
    try {
      const result = await verifyStreamIntegrity(this.store, streamId, { anchors: index });
      return integrityView(
        sessionId,
        result,
        index.refused(() => true),
      );
    } finally {
      index.close();
    }
  }

  @Get('verify')
  async verifyTenant(@Principal() principal: TenantPrincipal) {
    await this.readModels.requireReached(await this.readModels.storeHead());
    const index = await this.anchors.index({ tenant: principal.tenant });
    try {
      const views: ReturnType<typeof integrityView>[] = [];
      const listed = new Set<string>();
      const none = { named: [], total: 0 };
      const verify = async (sessionId: string): Promise<void> => {
        const result = await verifyStreamIntegrity(this.store, sessionStreamName(sessionId), {
          anchors: index,
        });
        views.push(integrityView(sessionId, result, none));
      };
      let cursor: string | undefined;
      do {
        const page = await this.readModels.projections.catalog.listSessions({
          tenant: principal.tenant,
          limit: MAX_SESSION_PAGE,
          ...(cursor !== undefined ? { cursor } : {}),
        });
        for (const session of page.items) {
          listed.add(sessionStreamName(session.sessionId));
          await verify(session.sessionId);
        }
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      // Sessions the catalog no longer lists but the tenant's anchors or erasure records name.
      const erasures = (await this.store.listErasures()).filter(
        (record) => record.tenant === principal.tenant,
      );
      for (const streamId of new Set([...index.streams(), ...erasures.map((record) => record.streamId)])) {
        if (!listed.has(streamId) && streamId.startsWith(SESSION_STREAM_PREFIX))
          await verify(streamId.slice(SESSION_STREAM_PREFIX.length));
      }
      const refused = refusedAnchorsView(index.refused(() => true));
      return {
        ok: views.every((view) => view.ok) && refused.refusedAnchorCount === 0,
        sessions: views.length,
        events: views.reduce((total, view) => total + view.events, 0),
        anchorsMatched: views.reduce((total, view) => total + view.anchorsMatched, 0),
        broken: views.flatMap((view) =>
          view.brokenAt !== null ? [{ sessionId: view.sessionId, ...view.brokenAt }] : [],
        ),
        findings: views.flatMap((view) =>
          view.findings.map((finding) => ({ sessionId: view.sessionId, ...finding })),
        ),
        erased: views.flatMap((view) =>
          view.erasure !== null && view.findings.length === 0
            ? [{ sessionId: view.sessionId, ...view.erasure }]
            : [],
        ),
        ...refused,
      };
    } finally {
      index.close();
    }
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
    summary: 'Export the session as a pi v3 file, or its raw event log',
    description:
      '`format=events` answers the raw event log as JSON Lines, one event a line: `streamId`, `revision`, ' +
      '`position`, `id`, `type`, `createdAt`, `data` and `metadata` (with `previousHash` and `hash`), the ' +
      'file `strata verify --file` checks with no store or engine (`strata export <id> --events` writes the same).',
    pathParameters: sessionPath,
    query: exportQuery,
    responses: {
      200: {
        description:
          'The session file (`format=pi`) or its event log (`format=events`, `application/x-ndjson` too)',
        schema: z.string(),
        mediaType: SESSION_FILE_MEDIA_TYPE,
      },
    },
    problems: ['validation', 'not_found'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/verify',
    operationId: 'verifySession',
    tag: 'integrity',
    summary: "Verify the session's hash chain, the store's records of it and its signed anchors",
    description:
      "Checks the chain, the store's own record of the stream's last revision (a cut tail), retention " +
      "metadata, and every anchor of the engine's anchor log for the session (its revision must exist " +
      "and its hash be the chain's there); an erased session holds with its erasure record. " +
      '`ok` is false with a finding for each problem.',
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
    summary: "Verify every session of the caller's tenant (chains, the store's records, anchors, erasures)",
    responses: { 200: { description: 'The verification', schema: verifyTenantResponse } },
    problems: ['unavailable'],
  },
];
