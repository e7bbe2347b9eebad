// Issue 24, item 1: an engine restarted under a clock one hour behind (as after a wrong NTP step)
// keeps every stream's times in order, records the step, still verifies, and an anchor export by
// log position misses none of the anchors signed under the wrong clock.
import { anchorSchema, type Anchor } from '@strata/integrity';
import { session } from '@strata/testing';
import { ALPHA_KEY, startHttpEngine, storedEventsOf, waitUntil, type HttpHarness } from './http-harness';

const HOUR_MS = 3_600_000;

function anchorsOf(text: string): Anchor[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => anchorSchema.parse(JSON.parse(line)));
}

describe('an engine restarted under a clock one hour behind', () => {
  let engine: HttpHarness | undefined;

  afterEach(async () => {
    await engine?.close();
    engine = undefined;
  });

  it('records later events at the last event’s time with the step, verifies, and exports every anchor after a position', async () => {
    const options = { environment: { STRATA_API_KEYS: `alpha:${ALPHA_KEY}` } };
    const first = await startHttpEngine(options);
    engine = first;
    const built = session({ sessionId: 'timed' }).user('first question').assistant('first answer');
    await first.seed(built.header, built.entries, ALPHA_KEY);
    let before: Anchor[] = [];
    await waitUntil(async () => {
      before = anchorsOf((await first.request('GET', '/anchors', { key: ALPHA_KEY })).text);
      return before.length > 0;
    }, 'the first engine signed an anchor');
    const lastBefore = (await storedEventsOf(first, 'timed')).at(-1)!;
    await first.close({ keepDirectory: true });

    const behind = await startHttpEngine({
      ...options,
      directory: first.directory,
      clock: { now: () => Date.now() - HOUR_MS },
    });
    engine = behind;
    const leafId = built.entries.at(-1)!.id;
    const later = session({ sessionId: 'timed', idPrefix: 'later' }).user('a question under the wrong clock');
    const appended = await behind.request('POST', '/sessions/timed/entries', {
      key: ALPHA_KEY,
      body: { entries: later.entries.map((entry) => ({ ...entry, parentId: leafId })) },
    });
    expect(appended.status).toBe(200);

    const events = await storedEventsOf(behind, 'timed');
    const times = events.map((event) => Date.parse(event.createdAt));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const newEvents = events.filter((event) => event.revision > lastBefore.revision);
    expect(newEvents.length).toBeGreaterThan(0);
    for (const event of newEvents) {
      expect(event.createdAt).toBe(lastBefore.createdAt);
      expect(event.metadata['recordedAt']).toBe(event.createdAt);
      expect(event.metadata['clockStepMs']).toBeGreaterThan(HOUR_MS - 60_000);
    }
    const served = (await behind.request('GET', '/sessions/timed/events', { key: ALPHA_KEY })).body as {
      events: { revision: string; time: string }[];
    };
    expect(served.events.at(-1)!.time).toBe(lastBefore.createdAt);

    const verified = (await behind.request('GET', '/sessions/timed/verify', { key: ALPHA_KEY })).body as {
      ok: boolean;
    };
    expect(verified.ok).toBe(true);

    const position = before.at(-1)!.position!;
    let after: Anchor[] = [];
    await waitUntil(async () => {
      after = anchorsOf((await behind.request('GET', `/anchors?after=${position}`, { key: ALPHA_KEY })).text);
      return after.some((anchor) => BigInt(anchor.revision) === events.at(-1)!.revision);
    }, 'the engine under the wrong clock signed the new head');
    // signed an hour before the last anchor kept: an export by time would leave them out
    const since = anchorsOf(
      (await behind.request('GET', `/anchors?since=${before.at(-1)!.time}`, { key: ALPHA_KEY })).text,
    );
    const newAnchor = after.find((anchor) => BigInt(anchor.revision) === events.at(-1)!.revision)!;
    expect(Date.parse(newAnchor.time)).toBeLessThan(Date.parse(before.at(-1)!.time));
    expect(since.map((anchor) => anchor.position)).not.toContain(newAnchor.position);
  });
});
