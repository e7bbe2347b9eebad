// GET /events: the live stream of session events as server-sent events, for the caller's
// tenant. `types` selects public names (all by default), `session` one session; a client
// resumes with the `Last-Event-ID` header (or `lastEventId`), else starts live (`from=end`,
// the default) or from the beginning of the log (`from=start`).
import { Controller, Get, Req, Res, UseGuards } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { invalidInput } from '../../api/problem/api-errors';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { parseQuery } from '../../api/request/request-input';
import { sessionIdParameter } from '../../api/sessions/session-requests.schemas';
import { TenantSessions } from '../../api/tenant-sessions.service';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import { EventStreams, type StreamStart } from '../../events-stream/event-streams.service';
import {
  isPublicEventName,
  publicEventNames,
  type PublicEventName,
} from '../../events-stream/public-event-names';
import { LARGEST_POSITION, parsePublicEventId } from '../../events-stream/public-events';
import { SSE_CONTENT_TYPE } from '../../events-stream/sse-frames';

export const eventsQuery = z.strictObject({
  types: z
    .string()
    .max(2_000)
    .optional()
    .describe(`comma-separated public names (${publicEventNames.join(', ')}); all by default`),
  session: sessionIdParameter.optional().describe('only the events of this session'),
  from: z
    .enum(['start', 'end'])
    .default('end')
    .describe('without a Last-Event-ID: the beginning of the log, or live'),
  lastEventId: z
    .string()
    .max(64)
    .optional()
    .describe('the id of the last event seen (when the header cannot be set)'),
});

function namesOf(types: string | undefined): ReadonlySet<PublicEventName> {
  if (types === undefined || types.trim() === '') return new Set(publicEventNames);
  const names = types
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isPublicEventName(name));
  if (unknown.length > 0) {
    throw invalidInput(`unknown event names: ${unknown.join(', ')}`, [
      { path: 'query.types', message: `known names: ${publicEventNames.join(', ')}` },
    ]);
  }
  return new Set(names.filter(isPublicEventName));
}

function startOf(header: string | undefined, query: z.infer<typeof eventsQuery>): StreamStart {
  const lastEventId = header ?? query.lastEventId;
  if (lastEventId === undefined || lastEventId.trim() === '') return { kind: query.from };
  const parsed = parsePublicEventId(lastEventId);
  if (parsed === undefined) {
    throw invalidInput('Last-Event-ID is not an id of this stream', [
      {
        path: 'header.last-event-id',
        message: `expected <position> or <position>.<index>, the position at most ${LARGEST_POSITION}`,
      },
    ]);
  }
  return { kind: 'after', position: parsed.position, index: parsed.index };
}

@Controller()
@UseGuards(TenantGuard)
export class EventStreamController {
  constructor(
    private readonly streams: EventStreams,
    private readonly sessions: TenantSessions,
  ) {}

  @Get('events')
  async events(
    @Principal() principal: TenantPrincipal,
    @Req() request: IncomingMessage,
    @Res() response: ServerResponse,
  ): Promise<void> {
    const query = parseQuery(request, eventsQuery);
    const names = namesOf(query.types);
    const header = request.headers['last-event-id'];
    const start = startOf(Array.isArray(header) ? header[0] : header, query);
    if (query.session !== undefined) await this.sessions.requireOwned(principal, query.session);
    this.streams.requireCapacity(principal.tenant);
    await this.streams.serve(
      {
        tenant: principal.tenant,
        names,
        start,
        ...(query.session !== undefined ? { sessionId: query.session } : {}),
      },
      request,
      response,
    );
  }
}

export const eventStreamOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/events',
    operationId: 'streamEvents',
    tag: 'events',
    summary: 'Live session events (server-sent events), resumable with Last-Event-ID',
    description:
      'Each event: `id` (the global position, `<position>.1` for the second public event of one store event), ' +
      '`event` (the public name), `data` (one JSON object: name, id, position, sessionId, revision, eventId, ' +
      'recordedAt, data). Comments: `connected`, `caught up at <position>`, `heartbeat`.',
    query: eventsQuery,
    headers: {
      'Last-Event-ID': { schema: z.string(), description: 'resume after this event id' },
    },
    responses: {
      200: { description: 'The event stream', schema: z.string(), mediaType: SSE_CONTENT_TYPE },
    },
    problems: ['validation', 'not_found', 'gone', 'unavailable'],
  },
];
