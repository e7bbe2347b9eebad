// pi session files in and out, and integrity checks: import a JSON Lines file (any version,
// migrated to v3) as a session of the caller's tenant, export a session as a v3 file or as its
// raw event log, and verify one session or every session of the tenant: the hash chain, the
// store's record of each stream's last revision, the engine's signed anchors, erasure records.
import { Controller, Get, Inject, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import {
  ConcurrencyError,
  acceptsEncodedAppends,
  type EncodedAppends,
  StreamErasedError,
  type EventStore,
} from '@strata/event-store';
import { streamEventLines, verifyStreamIntegrity } from '@strata/integrity';
import {
  exportOriginalFile,
  exportSession,
  type EncodedSessionImport,
  type PrepareSessionImportOptions,
  type PreparedSessionImport,
  type SessionImportReport,
  writeSessionImport,
} from '@strata/session-files';
import { SESSION_STREAM_PREFIX, sessionStreamName } from '@strata/session';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { EngineConfig } from '../../config/engine-config';
import { EVENT_STORE } from '../../shared/injection-tokens';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { ReadModels } from '../../read-side/read-models.service';
import { ApiError, invalidInput } from '../../api/problem/api-errors';
import {
  parseParameter,
  parseQuery,
  readJsonLinesBody,
  sessionFileMediaTypes,
} from '../../api/request/request-input';
import {
  MAX_SESSION_PAGE,
  exportQuery,
  importQuery,
  sessionIdParameter,
  sessionPath,
} from '../../api/sessions/session-requests.schemas';
import { EngineAnchors } from '../../anchors/engine-anchors';
import { JSON_LINES_MEDIA_TYPE, writeJsonLines } from '../../api/request/json-lines-response';
import { integrityView, refusedAnchorsView } from './session-integrity';
import {
  importResponse,
  verifySessionResponse,
  verifyTenantResponse,
} from '../../api/sessions/session-responses.schemas';
import { TenantSessions, commandContextOf } from '../../api/tenant-sessions.service';
import { actorMetadataOf } from '../../shared/command-context';
import { SessionErasedError, sessionErasure } from '../../shared/session-erasure';
import { requireRoomFor, SessionTooLargeError } from '../../shared/session-size';
import { WriteBody } from '../../api/admission/write-admission.interceptor';
import { SessionImportWork } from './session-import-work';
import { weightOfEntries } from './session-import.tasks';
import { traceImport } from '../../observability/tracing/engine-spans';

export const SESSION_FILE_MEDIA_TYPE = JSON_LINES_MEDIA_TYPE;

/** A part of a file (`fromEntry`) is a pi v3 file read strictly; the other options do not apply to it. */
function importOptionsOf(query: z.infer<typeof importQuery>): PrepareSessionImportOptions {
  if (query.fromEntry === undefined) return { lenient: query.lenient, format: query.format ?? 'auto' };
  if (query.lenient || (query.format !== undefined && query.format !== 'pi')) {
    throw invalidInput('fromEntry takes a part of a pi v3 file, read strictly', [
      { path: 'query.fromEntry', message: 'not with lenient or a format other than pi' },
    ]);
  }
  return { fromEntry: query.fromEntry };
}

@Controller()
@UseGuards(TenantGuard)
export class SessionFilesController {
  constructor(
    private readonly sessions: TenantSessions,
    private readonly readModels: ReadModels,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    private readonly anchors: EngineAnchors,
    private readonly importWork: SessionImportWork,
  ) {}

  @Post('sessions/import')
  @WriteBody('session_file')
  importFile(
    @Principal() principal: TenantPrincipal,
    @Req() request: IncomingMessage,
    @Res({ passthrough: true }) response: ServerResponse,
  ) {
    return traceImport(() => this.importSession(principal, request, response));
  }

  private async importSession(
    principal: TenantPrincipal,
    request: IncomingMessage,
    response: ServerResponse,
  ) {
    const query = parseQuery(request, importQuery);
    const file = await readJsonLinesBody(request, this.config.importBodyLimitBytes);
    const options = importOptionsOf(query);
    const write = { tenant: principal.tenant, metadata: actorMetadataOf(commandContextOf(principal)) };
    const { maxSessionEntries } = this.config.foldCache;
    const checkSession = async (sessionId: string) => {
      await this.sessions.requireAvailable(principal, sessionId);
      await this.sessions.requireNotErased(principal, sessionId, query.allowErased);
    };
    const encoded =
      options.fromEntry === undefined && acceptsEncodedAppends(this.store)
        ? await this.importWork.encode({ file, options, write, maxSessionEntries })
        : undefined;
    if (encoded?.kind === 'too_large') {
      await checkSession(encoded.sessionId);
      throw new SessionTooLargeError(encoded.sessionId, encoded.weight, maxSessionEntries);
    }
    let report: SessionImportReport | undefined;
    if (encoded !== undefined) {
      await checkSession(encoded.encoded.report.sessionId);
      report = await this.writeEncoded(encoded.encoded, query.allowErased);
    }
    if (report === undefined) {
      // a part of a file, a store that takes no encoded events, or a session that exists: the
      // store's state decides what is written (parsed and checked on a worker thread all the same)
      const prepared = await this.importWork.prepare({ file, options });
      const sessionId = prepared.header.id;
      if (encoded === undefined) await checkSession(sessionId);
      // a whole file heavier than the bound is refused before the store is read
      const weight = weightOfEntries(prepared.entries);
      if (query.fromEntry === undefined && weight > maxSessionEntries)
        throw new SessionTooLargeError(sessionId, weight, maxSessionEntries);
      report = await this.writePrepared(prepared, write, query.allowErased, maxSessionEntries);
    }
    response.statusCode = report.outcome === 'imported' ? 201 : 200;
    const { streamId: _streamId, ...rest } = report;
    return { ...rest, revision: report.revision.toString() };
  }

  /**
   * Writes a new session's encoded events, expecting no stream; undefined (nothing written) when
   * the session exists by now, so that the caller decides against what the store holds.
   */
  private async writeEncoded(
    encoded: EncodedSessionImport,
    allowErased: boolean,
  ): Promise<SessionImportReport | undefined> {
    const store = this.store as EventStore & EncodedAppends;
    const { report } = encoded;
    if ((await store.streamRevision(report.streamId)) !== null) return undefined;
    try {
      const written = await store.appendEncoded(report.streamId, encoded.events, {
        expectedRevision: 'no_stream',
        reviveErased: allowErased,
      });
      return { ...report, revision: written.nextExpectedRevision };
    } catch (error) {
      if (error instanceof ConcurrencyError) return undefined;
      throw error;
    }
  }

  private async writePrepared(
    prepared: PreparedSessionImport,
    write: { readonly tenant: string; readonly metadata: Readonly<Record<string, unknown>> },
    allowErased: boolean,
    maxSessionEntries: number,
  ): Promise<SessionImportReport> {
    const sessionId = prepared.header.id;
    return writeSessionImport(this.store, prepared, {
      ...write,
      reviveErased: allowErased,
      checkAppend: (state, appended) =>
        requireRoomFor(sessionId, state, weightOfEntries(appended), maxSessionEntries),
    }).catch(async (error: unknown) => {
      if (!(error instanceof StreamErasedError)) throw error;
      // EventStoreDB: an erasure is a hard delete, and the stream cannot be written again
      const erasure = await sessionErasure(this.store, sessionId, write.tenant);
      throw new ApiError(
        'gone',
        `session ${sessionId} was erased and cannot be written again on this store ` +
          '(an EventStoreDB tombstone is final); import it under another session id',
        { reason: 'session_erased', sessionId, ...(erasure !== undefined ? { erasure } : {}) },
      );
    });
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
    const text =
      format === 'original'
        ? (await exportOriginalFile(this.store, sessionId)).text
        : await exportSession(this.store, sessionId);
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
    try {
      await this.sessions.requireOwned(principal, sessionId);
    } catch (error) {
      // an erased session of the tenant is verified: its erasure record answers for it
      if (!(error instanceof SessionErasedError)) throw error;
    }
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

export const sessionFileOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/sessions/import',
    operationId: 'importSession',
    tag: 'files',
    summary: 'Import a pi session file (JSON Lines, v1 to v3), a Claude Code transcript or a Codex rollout',
    description:
      'Written in one atomic append; importing the same file again answers 200 `unchanged`. ' +
      'A file that grew since it was imported (the session holds its first entries) gets the rest ' +
      'appended in one atomic append: 200 `appended`, `appended` saying how many; the bound on one ' +
      'session (`STRATA_MAX_SESSION_ENTRIES`) applies to what is appended. ' +
      'A file that differs from its stored session answers 409 `import_conflict` with `firstDifference` ' +
      '(`line`, `entryIndex`, `entryId`, `storedEntryId`) and `storedEntries`. ' +
      'A file whose session is stored with other content answers 409. `format=auto` (the default) ' +
      'tells the format from the lines; a Claude Code or Codex file is converted into entries that ' +
      'keep every original line, so `GET /sessions/{id}/export?format=original` gives it back. ' +
      'An erased session id answers 409 `session_erased` with its erasure record unless ' +
      '`allowErased=true`; on EventStoreDB, where an erasure is a hard delete, even then 410 ' +
      '`session_erased`: the id cannot be written again.',
    query: importQuery,
    body: {
      mediaTypes: sessionFileMediaTypes,
      schema: z.string().describe('the session file: a header line, then one entry per line'),
    },
    responses: {
      201: { description: 'Imported', schema: importResponse },
      200: {
        description: 'Already stored exactly so, or the new entries of a grown file appended',
        schema: importResponse,
      },
    },
    problems: ['validation', 'forbidden', 'conflict', 'gone', 'payload_too_large'],
  },
  {
    method: 'get',
    path: '/sessions/{sessionId}/export',
    operationId: 'exportSession',
    tag: 'files',
    summary: 'Export the session as a pi v3 file, the transcript it was imported from, or its raw event log',
    description:
      '`format=original` answers the Claude Code or Codex file the session was imported from, ' +
      'byte for byte; 400 for a session that was not imported from one. ' +
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
