// Hostile HTTP bodies (issue 6, part 3): property-based fuzzing of the start, append and import
// endpoints of a running engine over real HTTP. Every answer is a success or a 4xx
// problem-details document — never a 5xx — a refused request leaves the store as it was, and the
// engine stays up, ready, with every session's hash chain intact.
import { join } from 'node:path';
import fc from 'fast-check';
import { SqliteEventStore, type EventStore } from '@strata/event-store';
import { verifyAll } from '@strata/integrity';
import { loadSession } from '@strata/session-files';
import { entryFieldProblems, headerFieldProblems, SESSION_STREAM_PREFIX } from '@strata/session';
import { session } from '@strata/testing';
import { startHttpEngine, type HttpHarness } from '../http/http-harness';
import { CaseCounts } from './support/case-counts';
import {
  hostileAppendBodyArbitrary,
  hostileStartBodyArbitrary,
  type HostileBody,
} from './support/hostile-bodies';
import { fileBytes, hasInvalidUtf8, hostileSessionFileArbitrary } from './support/hostile-session-files';

const START_RUNS = 150;
const APPEND_RUNS = 200;
const IMPORT_RUNS = 150;
const JSON_LIMIT = '1mb';
const IMPORT_LIMIT = '2mb';

// Shrinking a failure over HTTP takes longer than Jest's default.
jest.setTimeout(120_000);

const counts = new CaseCounts('HTTP bodies');
let engine: HttpHarness;
let reader: EventStore;

beforeAll(async () => {
  engine = await startHttpEngine({
    environment: { STRATA_BODY_LIMIT: JSON_LIMIT, STRATA_IMPORT_BODY_LIMIT: IMPORT_LIMIT },
  });
  reader = new SqliteEventStore({ filename: join(engine.directory, 'strata.db') });
  const target = session({ sessionId: 'fuzz-target' }).user('Hello').assistant('Hi.');
  await engine.seed(target.header, target.entries);
});

afterAll(async () => {
  counts.report();
  await reader.close();
  await engine.close();
});

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: unknown;
}

async function send(path: string, body: HostileBody): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (body.contentType !== undefined) headers['content-type'] = body.contentType;
  const response = await fetch(`${engine.url}${path}`, { method: 'POST', headers, body: body.bytes });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body: parsed };
}

async function headPosition(): Promise<bigint | null> {
  for await (const event of reader.readAll({ direction: 'backwards', fromPosition: 'end', maxCount: 1 })) {
    return event.position;
  }
  return null;
}

/** A 2xx, or a 4xx problem document with a code and a detail; the store unchanged after a 4xx. */
async function expectAnswered(answer: Answer, before: bigint | null): Promise<void> {
  expect(answer.status).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(answer.contentType).toMatch(/^application\/problem\+json/);
    const problem = answer.body as { status: number; code: string; detail: string };
    expect(problem.status).toBe(answer.status);
    expect(problem.code).toMatch(/^(validation|not_found|conflict|payload_too_large|forbidden)$/);
    expect(problem.detail.length).toBeGreaterThan(0);
    expect(await headPosition()).toBe(before);
  } else {
    expect(answer.status).toBeGreaterThanOrEqual(200);
  }
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}

describe('a running engine given hostile request bodies', () => {
  it('POST /sessions answers 2xx or a 4xx problem, never 5xx, and a refusal writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(hostileStartBodyArbitrary(), async (body) => {
        counts.record('POST /sessions', [body.family]);
        const before = await headPosition();
        const answer = await send('/sessions', body);
        await expectAnswered(answer, before);
        if (body.family === 'invalid-utf8' || body.family === 'deep-nesting') {
          expect(answer.status).toBeGreaterThanOrEqual(400);
        }
      }),
      { numRuns: START_RUNS },
    );
  });

  it('POST /sessions/{id}/entries answers 2xx or a 4xx problem, never 5xx, and a refusal writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(hostileAppendBodyArbitrary(), async (body) => {
        counts.record('POST /sessions/{id}/entries', [body.family]);
        const before = await headPosition();
        const answer = await send('/sessions/fuzz-target/entries', body);
        await expectAnswered(answer, before);
        if (body.family === 'invalid-utf8') expect(answer.status).toBeGreaterThanOrEqual(400);
        // Entry data up to 511 levels deep is valid input; deeper is refused.
        if (body.family === 'deep-nesting' && answer.status < 400) {
          expect(body.bytes.toString().split('[').length - 1).toBeLessThanOrEqual(510);
        }
      }),
      { numRuns: APPEND_RUNS },
    );
  });

  it('POST /sessions/import answers 2xx or a 4xx problem naming the line, never 5xx, and a refusal writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostileSessionFileArbitrary(),
        fc.boolean(),
        fc.constantFrom('application/x-ndjson', 'application/jsonl', 'text/plain'),
        async (file, lenient, contentType) => {
          counts.record(
            lenient ? 'POST /sessions/import?lenient=true' : 'POST /sessions/import',
            file.families,
          );
          const before = await headPosition();
          const body: HostileBody = { family: 'not-json', bytes: fileBytes(file), contentType };
          const answer = await send(`/sessions/import${lenient ? '?lenient=true' : ''}`, body);
          await expectAnswered(answer, before);
          if (answer.status === 400) {
            expect((answer.body as { line?: unknown }).line).toEqual(expect.any(Number));
          }
          if (!lenient && hasInvalidUtf8(file)) expect(answer.status).toBeGreaterThanOrEqual(400);
        },
      ),
      { numRuns: IMPORT_RUNS },
    );
  });

  it.each([
    {
      what: 'entry data nested 5,000 levels deep',
      path: '/sessions/fuzz-target/entries',
      bytes: Buffer.from(
        `{"entries":[{"type":"custom","id":"deep","parentId":null,"timestamp":"2026-01-01T00:00:00Z","customType":"x","data":${'['.repeat(5000)}${']'.repeat(5000)}}]}`,
      ),
      contentType: 'application/json',
      detail: 'the body nests deeper than 512 levels',
    },
    {
      what: 'a start body with a byte that is not UTF-8',
      path: '/sessions',
      bytes: Buffer.concat([Buffer.from('{"cwd":"/caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
      contentType: 'application/json',
      detail: 'the body is not UTF-8 text',
    },
    {
      what: 'a session file whose second line is not UTF-8',
      path: '/sessions/import',
      bytes: Buffer.concat([
        Buffer.from(
          '{"type":"session","version":3,"id":"latin1","timestamp":"2026-01-01T00:00:00Z","cwd":"/w"}\n',
        ),
        Buffer.from(
          '{"type":"custom","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01Z","customType":"caf',
        ),
        Buffer.from([0xe9]),
        Buffer.from('"}\n'),
      ]),
      contentType: 'application/x-ndjson',
      detail: 'line 2: the line is not UTF-8 text (invalid-utf8)',
    },
  ])('answers 400 to $what, naming why, and writes nothing', async ({ path, bytes, contentType, detail }) => {
    const before = await headPosition();
    const answer = await send(path, { family: 'not-json', bytes, contentType });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'validation', detail });
    expect(await headPosition()).toBe(before);
  });

  it('is still alive and ready afterwards, and every stored session verifies', async () => {
    expect((await engine.request('GET', '/health')).status).toBe(200);
    expect((await engine.request('GET', '/ready')).status).toBe(200);
    const verification = await verifyAll(reader);
    expect(verification.broken).toEqual([]);
    expect(verification.streams).toBeGreaterThan(1);
  });

  it('stored only entries and headers that follow the input rules, every compaction keeping from its path', async () => {
    const streams = new Set<string>();
    for await (const event of reader.readAll()) {
      if (event.streamId.startsWith(SESSION_STREAM_PREFIX)) streams.add(event.streamId);
    }
    for (const streamId of streams) {
      const loaded = await loadSession(reader, streamId.slice(SESSION_STREAM_PREFIX.length));
      expect(headerFieldProblems(loaded.header)).toEqual([]);
      for (const entry of loaded.entries) {
        expect(entryFieldProblems(entry)).toEqual([]);
        if (entry.type === 'compaction' && entry.parentId !== null) {
          expect(loaded.state.isOnPathTo(entry.firstKeptEntryId, entry.parentId)).toBe(true);
        }
      }
    }
    expect(streams.size).toBeGreaterThan(1);
  });
});
