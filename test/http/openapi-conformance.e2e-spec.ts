// End to end over real HTTP: the OpenAPI document the engine serves is the one every answer of
// the HTTP suite is checked against (test/http/openapi-conformance), an answer outside it is
// caught whichever way it arrives, and an erased session's 410 is both answered and listed on
// every operation on one session (issue 26 item 6).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StrataClient } from '@strata/client';
import { session } from '@strata/testing';
import { apiDocument } from '../../apps/engine/src/http/api-document';
import { ALPHA_KEY, problemOf, startHttpEngine, type HttpHarness } from './http-harness';
import {
  forgetEngineOrigin,
  registerEngineOrigin,
  takeRecordedMismatches,
} from './openapi-conformance/conformance-recorder';
import { openEventStream } from './sse-client';

const ADMIN_KEY = 'alpha-admin-0123456789abcd';
const KEYS = `alpha:${ALPHA_KEY},alpha:dpo:${ADMIN_KEY}:admin`;

interface ServedOperation {
  readonly requestBody?: { readonly required?: boolean };
  readonly responses: Readonly<Record<string, unknown>>;
}

describe('given an engine serving its OpenAPI document', () => {
  let engine: HttpHarness;
  let served: { paths: Record<string, Record<string, ServedOperation>> };

  beforeAll(async () => {
    engine = await startHttpEngine({ environment: { STRATA_API_KEYS: KEYS } });
    served = (await engine.request('GET', '/docs/openapi.json')).body as typeof served;
  });

  afterAll(() => engine.close());

  it('serves the document the answers of the HTTP suite are checked against', () => {
    expect(served).toEqual(JSON.parse(JSON.stringify(apiDocument())));
  });

  it('lists 410 on every operation an erased session answers it on, and an erasure body as optional', () => {
    const erasable = [
      'get /sessions/{sessionId}',
      'get /sessions/{sessionId}/context',
      'get /sessions/{sessionId}/tree',
      'get /sessions/{sessionId}/entries',
      'get /sessions/{sessionId}/export',
      'get /sessions/{sessionId}/anchors',
      'get /sessions/{sessionId}/events',
      'get /sessions/{sessionId}/attempts',
      'post /sessions/{sessionId}/entries',
      'post /sessions/{sessionId}/labels',
      'post /sessions/{sessionId}/compact',
      'post /sessions/{sessionId}/navigate',
      'post /sessions/{sessionId}/abort',
      'get /events',
    ];
    const listed = erasable.map((operation) => {
      const [method = '', path = ''] = operation.split(' ');
      return [operation, Object.keys(served.paths[path]?.[method]?.responses ?? {}).includes('410')];
    });
    expect(listed).toEqual(erasable.map((operation) => [operation, true]));
    expect(served.paths['/sessions/{sessionId}']?.['delete']?.requestBody?.required).toBe(false);
  });

  it('erases with ?reason= alone, then answers 410 session_erased on each of those operations', async () => {
    const doomed = session({ sessionId: 'conformance-erased' }).editTurns(2);
    await engine.seed(doomed.header, doomed.entries, ALPHA_KEY);
    const leafId = doomed.entries.at(-1)?.id ?? '';
    const erased = await engine.request('DELETE', '/sessions/conformance-erased?reason=asked', {
      key: ADMIN_KEY,
    });
    expect(erased.status).toBe(200);
    const path = '/sessions/conformance-erased';
    const writes: [string, unknown][] = [
      [`${path}/entries`, { entries: session({ sessionId: 'conformance-erased' }).editTurns(1).entries }],
      [`${path}/labels`, { targetId: leafId, label: 'late' }],
      [`${path}/compact`, {}],
      [`${path}/navigate`, { targetId: leafId }],
      [`${path}/abort`, {}],
    ];
    const answers: [string, number, unknown][] = [];
    for (const read of ['', '/context', '/tree', '/entries', '/export', '/anchors', '/events', '/attempts']) {
      const answer = await engine.request('GET', `${path}${read}`, { key: ALPHA_KEY });
      answers.push([`GET ${read}`, answer.status, problemOf(answer)['reason']]);
    }
    for (const [target, body] of writes) {
      const answer = await engine.request('POST', target, { key: ALPHA_KEY, body });
      answers.push([`POST ${target}`, answer.status, problemOf(answer)['reason']]);
    }
    const stream = await openEventStream(`${engine.url}/events?session=conformance-erased`, {
      authorization: `Bearer ${ALPHA_KEY}`,
    });
    answers.push(['GET /events?session=', stream.status, JSON.parse(await stream.errorBody).reason]);
    expect(answers).toEqual(answers.map(([what]) => [what, 410, 'session_erased']));
  });
});

describe('given a server that answers outside the document, watched as an engine', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    // GET /sessions/{sessionId} answers 200 without the fields the document requires; anything
    // else answers 418, a status no operation lists.
    server = createServer((request, response) => {
      const known = request.url === '/sessions/drifted';
      response.writeHead(known ? 200 : 418, { 'content-type': 'application/json' });
      response.end(JSON.stringify(known ? { sessionId: 'drifted' } : { teapot: true }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    registerEngineOrigin(url);
  });

  afterAll(async () => {
    forgetEngineOrigin(url);
    await new Promise((resolve) => server.close(resolve));
  });

  it('catches the drift in an answer to fetch, naming the operation and the schema error', async () => {
    await fetch(`${url}/sessions/drifted`, { headers: { authorization: `Bearer ${ALPHA_KEY}` } });
    expect(takeRecordedMismatches()).toEqual([
      expect.stringMatching(
        /^getSession \(GET \/sessions\/drifted\) answered 200 with a body the document's schema refuses: .*required property/,
      ),
    ]);
  });

  it("catches it in an answer to @strata/client, and on the event stream's status", async () => {
    const client = new StrataClient({ url, apiKey: ALPHA_KEY, retry: { attempts: 1 } });
    await expect(client.listSessions()).rejects.toThrow();
    const stream = await openEventStream(`${url}/events`);
    await stream.errorBody;
    expect(takeRecordedMismatches()).toEqual([
      expect.stringContaining('(GET /sessions) answered 418, a status the document does not list'),
      expect.stringContaining('(GET /events) answered 418, a status the document does not list'),
    ]);
  });
});
