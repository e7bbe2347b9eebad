import * as fc from 'fast-check';
import { generatedSessionArbitrary, type GeneratedSession } from '@strata/testing';
import { decide, foldSessionEvents } from './decide';
import { branchSummary, compaction, label, toolResult, user } from './decider-spec-data';
import type { SessionCommand } from './session-commands';
import { SessionDomainError } from './session-domain-error';
import { sessionEventSchema, type SessionEvent } from './session-events';
import { evolve, initialState, type BranchSummaryAttempt, type SessionState } from './session-state';

// Random engine activity on top of a generated session: each step picks a command kind and a
// position in [0, 1) used to choose among the entries or attempts the state has at that moment.
const stepKinds = [
  'append',
  'appendToolResult',
  'move',
  'label',
  'prune',
  'startCompaction',
  'recordCompaction',
  'endCompaction',
  'startBranch',
  'recordBranch',
  'endBranch',
  'continue',
] as const;
type Step = { readonly kind: (typeof stepKinds)[number]; readonly position: number };
const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  kind: fc.constantFrom(...stepKinds, 'recordCompaction', 'continue', 'continue'),
  position: fc.integer({ min: 0, max: 999 }).map((thousandths) => thousandths / 1000),
});

function pick<T>(items: readonly T[], position: number): T | undefined {
  return items[Math.floor(position * items.length)];
}

function commandFor(step: Step, state: SessionState, newId: string): SessionCommand | undefined {
  if (state.status !== 'active') return undefined;
  const leaf = state.leafId;
  const entries = state.entries();
  const target = pick(entries, step.position);
  const open = state.openAttempts();
  const openCompaction = pick(
    open.filter((attempt) => attempt.kind === 'compaction'),
    step.position,
  );
  const openBranch = pick(
    open.filter((attempt): attempt is BranchSummaryAttempt => attempt.kind === 'branch_summary'),
    step.position,
  );
  switch (step.kind) {
    case 'append':
      return { type: 'AppendEntries', data: { entries: [user(newId, leaf)] } };
    case 'appendToolResult':
      return { type: 'AppendEntries', data: { entries: [toolResult(newId, leaf)], expectedLeafId: leaf } };
    case 'move':
      return { type: 'MoveLeaf', data: { leafId: target?.id ?? null } };
    case 'label':
      return (
        target && {
          type: 'SetLabel',
          data: { entry: label(newId, leaf, target.id, step.position < 0.3 ? '' : newId) },
        }
      );
    case 'prune': {
      const results = entries.filter(
        (entry) => entry.type === 'message' && entry.message.role === 'toolResult',
      );
      const result = pick(results, step.position);
      return (
        result && {
          type: 'RecordPruning',
          data: { prunedAt: 7, results: [{ entryId: result.id, tokens: 99 }], tokensSaved: 90 },
        }
      );
    }
    case 'startCompaction': {
      const trigger = pick(['manual', 'threshold', 'overflow'] as const, step.position) ?? 'manual';
      return {
        type: 'StartCompaction',
        data: { attemptId: newId, trigger, preparedAtLeafId: leaf, tokensBefore: 1_000, startedAt: 3 },
      };
    }
    case 'recordCompaction': {
      const attempt = openCompaction;
      const keepable = state
        .currentPath()
        .filter((entry) => entry.type !== 'message' || entry.message.role !== 'toolResult');
      const kept = pick(keepable, step.position);
      return (
        attempt &&
        kept && {
          type: 'RecordCompaction',
          data: {
            attemptId: attempt.attemptId,
            entry: compaction(newId, leaf, kept.id),
            durationMs: 5,
            estimatedTokensAfter: 100,
          },
        }
      );
    }
    case 'endCompaction': {
      const attempt = openCompaction;
      return (
        attempt && {
          type: step.position < 0.5 ? 'SkipCompaction' : 'CancelCompaction',
          data: { attemptId: attempt.attemptId, reason: 'generated', durationMs: 7 },
        }
      );
    }
    case 'startBranch':
      return (
        target && {
          type: 'StartBranchSummary',
          data: { attemptId: newId, targetId: target.id, oldLeafId: leaf, startedAt: 4 },
        }
      );
    case 'recordBranch': {
      const attempt = openBranch;
      return (
        attempt && {
          type: 'RecordBranchSummary',
          data: {
            attemptId: attempt.attemptId,
            entry: branchSummary(newId, attempt.started.targetId),
            durationMs: 6,
          },
        }
      );
    }
    case 'endBranch': {
      const attempt = openBranch;
      return (
        attempt && {
          type: 'FailBranchSummary',
          data: { attemptId: attempt.attemptId, error: { message: 'generated' }, durationMs: 8 },
        }
      );
    }
    case 'continue': {
      const completed = state.attempts().filter((attempt) => attempt.outcome?.type === 'CompactionCompleted');
      const attempt = pick(completed, step.position);
      if (attempt?.kind !== 'compaction') return undefined;
      const reason = attempt.started.trigger === 'overflow' ? 'overflow_retry' : 'auto_continue';
      return { type: 'RequestContinuation', data: { reason, causationAttemptId: attempt.attemptId } };
    }
    default: {
      const unhandled: never = step.kind;
      return unhandled;
    }
  }
}

/** Runs the steps through `decide`, skipping refused commands; returns the events produced. */
function eventsOfSteps(steps: readonly Step[], from: SessionState, idPrefix: string): SessionEvent[] {
  const events: SessionEvent[] = [];
  let state = from;
  steps.forEach((step, index) => {
    const command = commandFor(step, state, `${idPrefix}${index}`);
    if (!command) return;
    try {
      for (const event of decide(command, state)) {
        events.push(event);
        state = evolve(state, event);
      }
    } catch (error) {
      if (!(error instanceof SessionDomainError)) throw error;
    }
  });
  return events;
}

function sessionEvents(session: GeneratedSession): SessionEvent[] {
  const events: SessionEvent[] = [{ type: 'SessionStarted', data: { header: session.header } }];
  for (const entry of session.entries) events.push({ type: 'EntryAppended', data: { entry } });
  const last = session.entries[session.entries.length - 1];
  if (last && last.id !== session.leafId) {
    events.push({ type: 'LeafMoved', data: { leafId: session.leafId, previousLeafId: last.id } });
  }
  return events;
}

/** Everything a state lets a reader observe, as plain data. */
function observe(state: SessionState, probeIds: readonly string[]) {
  if (state.status === 'empty') return { status: state.status };
  return {
    status: state.status,
    header: state.header,
    leafId: state.leafId,
    entries: state.entries(),
    known: probeIds.filter((entryId) => state.hasEntry(entryId)),
    paths: probeIds.map((entryId) => state.pathTo(entryId).map((entry) => entry.id)),
    labels: [...state.labels()],
    pruned: [...state.prunedResults()],
    prunedFlags: probeIds.map((entryId) => state.isPruned(entryId)),
    attempts: state.attempts(),
    open: state.openAttempts().map((attempt) => attempt.attemptId),
  };
}

function statesOf(events: readonly SessionEvent[]): SessionState[] {
  const states: SessionState[] = [initialState()];
  for (const event of events) states.push(evolve(states[states.length - 1]!, event));
  return states;
}

const historyArbitrary = fc
  .tuple(
    generatedSessionArbitrary({ maxEntries: 25, compactions: true, images: false, unicodeText: false }),
    fc.array(stepArbitrary, { minLength: 10, maxLength: 40 }),
  )
  .map(([session, steps]) => {
    const base = sessionEvents(session);
    return [...base, ...eventsOfSteps(steps, foldSessionEvents(base), 'n')];
  });

const probeIdsOf = (events: readonly SessionEvent[]) =>
  events.flatMap((event) => (event.type === 'EntryAppended' ? [event.data.entry.id] : []));

describe('folding generated session histories', () => {
  it('produces only events that the store schema accepts', () => {
    fc.assert(
      fc.property(historyArbitrary, (events) => {
        for (const event of events) expect(sessionEventSchema.parse(event)).toEqual(event);
      }),
      { numRuns: 30 },
    );
  });

  it('ends every attempt with the facts of its start, its duration and the estimate after', () => {
    fc.assert(
      fc.property(historyArbitrary, (events) => {
        const starts = new Map<string, SessionEvent>();
        for (const event of events) {
          if (event.type === 'CompactionStarted' || event.type === 'BranchSummaryStarted') {
            starts.set(event.data.attemptId, event);
          }
          const start = 'attemptId' in event.data ? starts.get(event.data.attemptId) : undefined;
          if (
            start?.type === 'CompactionStarted' &&
            /^Compaction(Completed|Skipped|Cancelled|Failed)$/.test(event.type)
          ) {
            expect(event.data).toMatchObject({
              trigger: start.data.trigger,
              durationMs: expect.any(Number),
              tokensBefore: expect.any(Number),
              estimatedTokensAfter: expect.any(Number),
            });
            if (event.type !== 'CompactionCompleted') {
              expect(event.data).toMatchObject({
                tokensBefore: start.data.tokensBefore,
                estimatedTokensAfter: start.data.tokensBefore,
              });
            }
          }
          if (
            start?.type === 'BranchSummaryStarted' &&
            /^BranchSummary(Completed|Skipped|Cancelled|Failed)$/.test(event.type)
          ) {
            expect(event.data).toMatchObject({
              targetId: start.data.targetId,
              oldLeafId: start.data.oldLeafId,
              durationMs: expect.any(Number),
            });
          }
        }
      }),
      { numRuns: 30 },
    );
  });

  it('gives equal states when the same events are folded twice', () => {
    fc.assert(
      fc.property(historyArbitrary, (events) => {
        const first = foldSessionEvents(events);
        const second = foldSessionEvents(events);
        expect(second).toEqual(first);
        expect(observe(second, probeIdsOf(events))).toEqual(observe(first, probeIdsOf(events)));
      }),
      { numRuns: 30 },
    );
  });

  it('never changes an earlier state, even when a fork of it evolves differently', () => {
    fc.assert(
      fc.property(
        historyArbitrary,
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.array(stepArbitrary, { minLength: 1, maxLength: 20 }),
        (events, forkPosition, forkSteps) => {
          const states = statesOf(events);
          const forkIndex = Math.max(1, Math.floor(forkPosition * states.length));
          const forkBase = states[Math.min(forkIndex, states.length - 1)]!;
          const forkEvents = eventsOfSteps(forkSteps, forkBase, 'f');
          const probeIds = [...probeIdsOf(events), ...probeIdsOf(forkEvents)];
          const before = states.map((state) => observe(state, probeIds));

          const forked = foldSessionEvents(forkEvents, forkBase);
          const continued = foldSessionEvents(forkEvents.slice(0, 3), states[states.length - 1]);

          expect(states.map((state) => observe(state, probeIds))).toEqual(before);
          const prefix = events.slice(0, Math.min(forkIndex, states.length - 1));
          expect(observe(forked, probeIds)).toEqual(
            observe(foldSessionEvents([...prefix, ...forkEvents]), probeIds),
          );
          expect(observe(continued, probeIds)).toEqual(
            observe(foldSessionEvents([...events, ...forkEvents.slice(0, 3)]), probeIds),
          );
        },
      ),
      { numRuns: 50 },
    );
  });
});
