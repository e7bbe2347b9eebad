// End to end over real HTTP, as a property: for generated sessions (branches, compactions, images,
// any Unicode) appended through the API in random batches, the context endpoint answers exactly
// what the pure buildSessionContext computes — at random leaves of the whole history, and, with
// `asOf`, at the position after each batch from the entries appended up to it.
import {
  buildSessionContext,
  charsPerFourCounter,
  estimateMessageTokens,
  type SessionEntry,
} from '@strata/session';
import { generatedSessionArbitrary } from '@strata/testing';
import fc from 'fast-check';
import {
  appendEntriesResponse,
  contextResponse,
  sessionDetailResponse,
} from '../../apps/engine/src/api/sessions/session-responses.schemas';
import { startHttpEngine, type ApiResponse, type HttpHarness } from './http-harness';

const RUNS = 15;

function ok<Value>(response: ApiResponse, parse: (body: unknown) => Value): Value {
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${response.text}`);
  return parse(response.body);
}

/** The expected answer, as it travels through JSON. */
function expectedContext(entries: readonly SessionEntry[], leafId: string | null) {
  const context = buildSessionContext(entries, leafId);
  const messageTokens = context.messages.map((message) =>
    estimateMessageTokens(message, charsPerFourCounter),
  );
  return {
    messages: JSON.parse(JSON.stringify(context.messages)) as unknown,
    entryIds: context.entryIds,
    leafId: context.leafId,
    compactionId: context.compactionId,
    thinkingLevel: context.thinkingLevel,
    messageTokens,
    tokens: messageTokens.reduce((total, count) => total + count, 0),
  };
}

/** Cuts `entries` into consecutive batches at the given fractions (each batch non-empty). */
function batchesOf(entries: readonly SessionEntry[], cuts: readonly number[]): SessionEntry[][] {
  const ends = [...new Set(cuts.map((cut) => Math.max(1, Math.ceil(cut * entries.length))))]
    .filter((end) => end < entries.length)
    .sort((first, second) => first - second);
  const batches: SessionEntry[][] = [];
  let start = 0;
  for (const end of [...ends, entries.length]) {
    batches.push(entries.slice(start, end));
    start = end;
  }
  return batches;
}

describe('given an engine on a SQLite store counting tokens with chars/4', () => {
  let engine: HttpHarness;
  let run = 0;
  const checked = { leaves: 0, positions: 0, withCompaction: 0, withBranch: 0 };

  beforeAll(async () => {
    engine = await startHttpEngine({ settings: { compaction: { enabled: false } } });
  });

  afterAll(async () => {
    await engine.close();
    console.log(
      `[context equivalence] ${RUNS} generated sessions (${checked.withCompaction} with a compaction, ` +
        `${checked.withBranch} with a branch), ${checked.leaves} leaves and ${checked.positions} asOf positions compared`,
    );
  });

  it('answers the context at any leaf, and as of any earlier position, as buildSessionContext', async () => {
    await fc.assert(
      fc.asyncProperty(
        generatedSessionArbitrary({ maxEntries: 40, compactions: true }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 6 }),
        async (generated, cuts, leafPicks) => {
          run += 1;
          if (generated.entries.some((entry) => entry.type === 'compaction')) checked.withCompaction += 1;
          const branched = generated.entries.some(
            (entry, index) => index > 0 && entry.parentId !== generated.entries[index - 1]!.id,
          );
          if (branched) checked.withBranch += 1;
          const sessionId = `equivalence-${run}`;
          const started = await engine.request('POST', '/sessions', {
            body: { sessionId, cwd: generated.header.cwd },
          });
          expect(started.status).toBe(201);

          const snapshots: { position: string; entries: readonly SessionEntry[]; leafId: string | null }[] =
            [];
          let appended: SessionEntry[] = [];
          for (const batch of batchesOf(generated.entries, cuts)) {
            const answer = ok(
              await engine.request('POST', `/sessions/${sessionId}/entries`, { body: { entries: batch } }),
              (body) => appendEntriesResponse.parse(body),
            );
            appended = [...appended, ...batch];
            const detail = ok(await engine.request('GET', `/sessions/${sessionId}`), (body) =>
              sessionDetailResponse.parse(body),
            );
            snapshots.push({ position: detail.position, entries: appended, leafId: answer.leafId });
          }

          for (const pick of leafPicks) {
            const leaf = generated.entries[pick % generated.entries.length]!.id;
            const context = ok(
              await engine.request('GET', `/sessions/${sessionId}/context?leaf=${encodeURIComponent(leaf)}`),
              (body) => contextResponse.parse(body),
            );
            expect(context).toMatchObject(expectedContext(generated.entries, leaf));
            checked.leaves += 1;
          }

          for (const snapshot of snapshots) {
            const context = ok(
              await engine.request('GET', `/sessions/${sessionId}/context?asOf=${snapshot.position}`),
              (body) => contextResponse.parse(body),
            );
            expect(context).toMatchObject({
              ...expectedContext(snapshot.entries, snapshot.leafId),
              asOf: snapshot.position,
            });
            checked.positions += 1;
          }
        },
      ),
      { numRuns: RUNS },
    );
  }, 120_000);
});
