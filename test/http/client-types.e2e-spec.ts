// Keeps @strata/client in step with the engine's API. At compile time (tsc): each answer the
// engine's response schemas allow fits the client's hand-written type, and each request the
// client sends fits the engine's request schema. At run time: every path and method the client
// calls is an operation of the served OpenAPI document, and a session file is sent as one of the
// media types the import accepts.
import {
  StrataClient,
  eventNames,
  type AbortResult,
  type AppendResult,
  type AttemptList,
  type CompactRequest,
  type CompactionResult,
  type ImportReport,
  type NavigationResult,
  type SessionContext,
  type SessionDetail,
  type SessionEntries,
  type SessionEntryView,
  type SessionList,
  type SessionTree,
  type SessionVerification,
  type SetLabelResult,
  type StartSessionRequest,
  type StartSessionResult,
  type TenantVerification,
  type AbortRequest,
  type AttemptsQuery,
  type ContextQuery,
  type ListSessionsQuery,
  type NavigateOptions,
  type AppendOptions,
  type ContextSizes,
  type RawEventsPage,
  type SearchResults,
  type SessionLease,
} from '@strata/client';
import type { z } from 'zod';
import { publicEventNames } from '../../apps/engine/src/events-stream/public-event-names';
import type { sessionEventsResponse } from '../../apps/engine/src/sessions/read-sessions/session-events.controller';
import type { sessionSearchResponse } from '../../apps/engine/src/sessions/read-sessions/session-search';
import type {
  abortBody,
  appendEntriesBody,
  compactBody,
  navigateBody,
  setLabelBody,
  startSessionBody,
  takeLeaseBody,
} from '../../apps/engine/src/api/sessions/session-requests.schemas';
import type {
  abortResponse,
  appendEntriesResponse,
  attemptListResponse,
  compactionResponse,
  contextResponse,
  contextSizesResponse,
  entriesResponse,
  importResponse,
  navigationResponse,
  sessionDetailResponse,
  sessionListResponse,
  setLabelResponse,
  startSessionResponse,
  treeResponse,
  verifySessionResponse,
  verifyTenantResponse,
  leaseResponse,
} from '../../apps/engine/src/api/sessions/session-responses.schemas';
import type {
  attemptsQuery,
  contextQuery,
  listSessionsQuery,
} from '../../apps/engine/src/api/sessions/session-requests.schemas';
import type { sessionEntryResponse } from '../../apps/engine/src/api/sessions/session-visibility.schemas';
import { startHttpEngine, type HttpHarness } from './http-harness';

/** Compiles only when `Engine` is assignable to `Client`. */
type Fits<Engine, Client> = [Engine] extends [Client] ? true : never;
const answersFit: readonly true[] = [
  true satisfies Fits<z.output<typeof startSessionResponse>, StartSessionResult>,
  true satisfies Fits<z.output<typeof appendEntriesResponse>, AppendResult>,
  true satisfies Fits<z.output<typeof importResponse>, ImportReport>,
  true satisfies Fits<z.output<typeof sessionDetailResponse>, SessionDetail>,
  true satisfies Fits<z.output<typeof sessionListResponse>, SessionList>,
  true satisfies Fits<z.output<typeof contextResponse>, SessionContext>,
  true satisfies Fits<z.output<typeof treeResponse>, SessionTree>,
  true satisfies Fits<z.output<typeof entriesResponse>, SessionEntries>,
  true satisfies Fits<z.output<typeof sessionEntryResponse>, SessionEntryView>,
  true satisfies Fits<z.output<typeof compactionResponse>, CompactionResult>,
  true satisfies Fits<z.output<typeof navigationResponse>, NavigationResult>,
  true satisfies Fits<z.output<typeof abortResponse>, AbortResult>,
  true satisfies Fits<z.output<typeof setLabelResponse>, SetLabelResult>,
  true satisfies Fits<z.output<typeof verifySessionResponse>, SessionVerification>,
  true satisfies Fits<z.output<typeof verifyTenantResponse>, TenantVerification>,
  true satisfies Fits<z.output<typeof attemptListResponse>, AttemptList>,
  true satisfies Fits<z.output<typeof contextSizesResponse>, ContextSizes>,
  true satisfies Fits<z.output<typeof sessionSearchResponse>, SearchResults>,
  true satisfies Fits<z.output<typeof sessionEventsResponse>, RawEventsPage>,
  true satisfies Fits<z.output<typeof leaseResponse>, SessionLease>,
];
const requestsFit: readonly true[] = [
  true satisfies Fits<StartSessionRequest, z.input<typeof startSessionBody>>,
  true satisfies Fits<AppendOptions, Omit<z.input<typeof appendEntriesBody>, 'entries'>>,
  true satisfies Fits<CompactRequest, z.input<typeof compactBody>>,
  true satisfies Fits<NavigateOptions, Omit<z.input<typeof navigateBody>, 'targetId'>>,
  true satisfies Fits<AbortRequest, z.input<typeof abortBody>>,
  true satisfies Fits<ContextQuery, Partial<z.output<typeof contextQuery>>>,
  true satisfies Fits<ListSessionsQuery, Partial<z.output<typeof listSessionsQuery>>>,
  true satisfies Fits<AttemptsQuery, Partial<z.output<typeof attemptsQuery>>>,
  true satisfies Fits<{ holder: string; ttlMs: number }, z.input<typeof takeLeaseBody>>,
  true satisfies Fits<{ token: string; ttlMs: number }, z.input<typeof takeLeaseBody>>,
  true satisfies Fits<
    { targetId: string; label: string | null; leaseToken?: string },
    z.input<typeof setLabelBody>
  >,
];

interface Recorded {
  readonly method: string;
  readonly url: URL;
  readonly contentType: string | undefined;
}

/** Calls every method of the client against a fetch that records the request and answers `{}`. */
async function everyCall(): Promise<Recorded[]> {
  const recorded: Recorded[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    recorded.push({
      method: init?.method ?? 'GET',
      url: new URL(input instanceof Request ? input.url : String(input)),
      contentType: headers.get('content-type') ?? undefined,
    });
    const eventStream = headers.get('accept') === 'text/event-stream';
    return Promise.resolve(
      new Response(eventStream ? '' : '{}', {
        status: eventStream ? 401 : 200,
        headers: { 'content-type': eventStream ? 'application/problem+json' : 'application/json' },
      }),
    );
  };
  const client = new StrataClient({ url: 'http://engine.test', fetch: recordingFetch });
  const id = 'session-1';
  await client.startSession({ cwd: '/work' });
  await client.append(id, [{ type: 'label', id: 'a', parentId: null, timestamp: '2026-01-01T00:00:00Z' }]);
  await client.importSession('{}\n', { lenient: true });
  await client.getSession(id);
  await client.listSessions({ limit: 1 });
  await client.context(id, { format: 'llm' });
  await client.tree(id);
  await client.entries(id, { limit: 1 });
  await client.getEntry(id, 'a');
  await client.compact(id);
  await client.navigate(id, 'a');
  await client.abort(id);
  await client.setLabel(id, 'a', 'x');
  await client.exportSession(id);
  await client.verify(id);
  await client.verifyAll();
  await client.attempts(id);
  await client.attempts(undefined);
  await client.takeLease(id, 'host', 5_000);
  await client.renewLease(id, '1.token', 5_000);
  await client.releaseLease(id, '1.token');
  const stream = client.events({ maxReconnects: 0 });
  await (async () => {
    for await (const _event of stream) break;
  })().catch(() => undefined);
  return recorded;
}

describe('given the OpenAPI document the engine serves', () => {
  let engine: HttpHarness;
  let document: {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>>;
  };

  beforeAll(async () => {
    engine = await startHttpEngine();
    document = (await engine.request('GET', '/docs/openapi.json')).body as typeof document;
  });

  afterAll(() => engine.close());

  it('holds every path and method the client calls, with the media type it sends', async () => {
    expect(answersFit.length + requestsFit.length).toBe(31);
    const templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
    const calls = await everyCall();
    expect(calls).toHaveLength(22);
    for (const call of calls) {
      const matches = templates.filter(({ pattern }) => pattern.test(call.url.pathname));
      // A literal path (/sessions/import) wins over a template (/sessions/{sessionId}).
      const match = matches.find(({ template }) => !template.includes('{')) ?? matches[0];
      expect({ call: `${call.method} ${call.url.pathname}`, found: match !== undefined }).toEqual({
        call: `${call.method} ${call.url.pathname}`,
        found: true,
      });
      const operation = document.paths[match!.template]?.[call.method.toLowerCase()];
      expect({ call: `${call.method} ${match!.template}`, operation: operation !== undefined }).toEqual({
        call: `${call.method} ${match!.template}`,
        operation: true,
      });
      if (call.contentType !== undefined) {
        expect(Object.keys(operation?.requestBody?.content ?? {})).toContain(call.contentType);
      }
    }
  });

  it('names the same public events as the engine', () => {
    expect([...eventNames]).toEqual([...publicEventNames]);
  });
});
