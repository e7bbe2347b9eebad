// The raw events of one session, as the store holds them, a page at a time (the viewer's events
// tab): revision, global position, type, id, actor, the time the store recorded it, and the
// integrity chain's hash and previous hash. Read straight from the store (not a read model), so
// it shows what `verify` checks; a page reads at most `limit` events.
import { Controller, Get, Inject, Param, Req, UseGuards } from '@nestjs/common';
import type { EventStore, RecordedEvent } from '@strata/event-store';
import { sessionStreamName } from '@strata/session';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { EVENT_STORE } from '../../shared/injection-tokens';
import type { TenantPrincipal } from '../../tenancy/tenant-directory';
import { Principal, TenantGuard } from '../../api/tenant.guard';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { decimalString, responseSchema } from '../../api/openapi/api-schemas';
import { parseParameter, parseQuery } from '../../api/request/request-input';
import { TenantSessions } from '../../api/tenant-sessions.service';
import { sessionIdParameter } from '../../api/sessions/session-requests.schemas';

export const DEFAULT_EVENT_PAGE = 100;
export const MAX_EVENT_PAGE = 1_000;

export const sessionEventsQuery = z.strictObject({
  after: decimalString
    .max(18)
    .optional()
    .describe('the revision of the last event of the previous page (`next`)'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_EVENT_PAGE)
    .optional()
    .describe(`events per page, 1 to ${MAX_EVENT_PAGE} (${DEFAULT_EVENT_PAGE} by default)`),
});

const nullableText = z.string().nullable();

export const sessionEventsResponse = responseSchema(
  'SessionEventsPage',
  z.object({
    sessionId: z.string(),
    events: z.array(
      z.object({
        revision: decimalString.describe('0-based revision in the session stream'),
        position: decimalString.describe('global position in the store'),
        type: z.string().describe('the store event type (EntryAppended, LeafMoved, CompactionStarted, …)'),
        id: z.string().describe('the event id'),
        actor: nullableText.describe('who wrote it (metadata.actor), when recorded'),
        onBehalfOf: nullableText.describe('for whom (metadata.onBehalfOf), when recorded'),
        time: z.string().describe('when the store recorded it (ISO 8601)'),
        hash: nullableText.describe('the integrity hash of the event (SHA-256, hex)'),
        previousHash: nullableText.describe('the hash it is chained to'),
      }),
    ),
    next: decimalString
      .nullable()
      .describe('pass as `after` for the next page; null when this page reached the end of the stream'),
  }),
  'A page of the raw events of a session, oldest first.',
);

function text(metadata: Readonly<Record<string, unknown>>, key: string): string | null {
  const value = metadata[key];
  return typeof value === 'string' ? value : null;
}

function eventView(event: RecordedEvent) {
  return {
    revision: event.revision.toString(),
    position: event.position.toString(),
    type: event.type,
    id: event.id,
    actor: text(event.metadata, 'actor'),
    onBehalfOf: text(event.metadata, 'onBehalfOf'),
    time: event.createdAt,
    hash: text(event.metadata, 'hash'),
    previousHash: text(event.metadata, 'previousHash'),
  };
}

@Controller()
@UseGuards(TenantGuard)
export class SessionEventsController {
  constructor(
    private readonly sessions: TenantSessions,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  @Get('sessions/:sessionId/events')
  async events(
    @Principal() principal: TenantPrincipal,
    @Param('sessionId') sessionIdText: string,
    @Req() request: IncomingMessage,
  ) {
    const sessionId = parseParameter('sessionId', sessionIdText, sessionIdParameter);
    const query = parseQuery(request, sessionEventsQuery);
    await this.sessions.requireOwned(principal, sessionId);
    const limit = query.limit ?? DEFAULT_EVENT_PAGE;
    const fromRevision = query.after === undefined ? 0n : BigInt(query.after) + 1n;
    const events: ReturnType<typeof eventView>[] = [];
    // One more than the page tells whether there is a next page.
    for await (const event of this.store.readStream(sessionStreamName(sessionId), {
      fromRevision,
      maxCount: limit + 1,
    })) {
      events.push(eventView(event));
    }
    const page = events.slice(0, limit);
    const more = events.length > limit;
    return { sessionId, events: page, next: more ? (page[page.length - 1]?.revision ?? null) : null };
  }
}

export const sessionEventOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/sessions/{sessionId}/events',
    operationId: 'listSessionEvents',
    tag: 'integrity',
    summary: 'The raw events of a session, a page at a time',
    description:
      'Oldest first, as the store holds them: revision, position, type, id, actor, time, hash and previous hash. ' +
      'Page with `after` (the `next` of the previous page).',
    pathParameters: { sessionId: sessionIdParameter },
    query: sessionEventsQuery,
    responses: { 200: { description: 'One page of events', schema: sessionEventsResponse } },
    problems: ['validation', 'not_found'],
  },
];
