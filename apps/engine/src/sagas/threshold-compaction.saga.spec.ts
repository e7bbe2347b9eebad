import { session, type SessionBuilder } from '@strata/testing';
import { SPEC_RECORDED_AT, SPEC_SESSION_ID, SagaSpecification, appendedTrigger } from './saga-specification';
import { autoCompactionAttemptId, pruningSeedOf } from './saga-ids';
import type { SagaCommand } from './saga-messages';
import { thresholdCompactionSaga } from './threshold-compaction.saga';

/** With the defaults and a 200,000-token window the threshold is 183,616 (reference §3.2). */
const THRESHOLD = 200000 - 16384;
const spec = SagaSpecification.for(thresholdCompactionSaga);

function answering(usedTokens: number, builder: SessionBuilder = session()): SessionBuilder {
  return builder
    .user('Go on')
    .assistant('Working on it.', { usage: { input: usedTokens - 100, output: 100 } });
}

function compactionFor(entryId: string, atLeafId: string = entryId): SagaCommand {
  return {
    type: 'AutoCompact',
    data: {
      sessionId: SPEC_SESSION_ID,
      causationEventId: `event-of-${entryId}`,
      trigger: 'threshold',
      attemptId: autoCompactionAttemptId(`event-of-${entryId}`, 'threshold'),
      atLeafId,
    },
  };
}

/** Seven tool results of 10,000 tokens each: pruning the three oldest saves 29,973 tokens. */
function withLargeResults(builder: SessionBuilder = session()): SessionBuilder {
  const tools = ['bash', 'bash', 'bash', 'bash', 'bash', 'bash', 'bash'];
  builder.user('Run everything').assistantToolCalls(tools.map((name) => ({ name })));
  for (const tool of tools) builder.toolResult(tool, 'x'.repeat(40000));
  return builder;
}
const SAVED_BY_PRUNING = 3 * (10000 - 9);
/** A larger window and reserve, so that the usage before pruning is no silent overflow. */
const LARGE_WINDOW = 400000;
const LARGE_RESERVE = 100000;
const LARGE_THRESHOLD = LARGE_WINDOW - LARGE_RESERVE;
const large = { contextWindow: LARGE_WINDOW, compaction: { reserveTokens: LARGE_RESERVE } };

describe('threshold compaction', () => {
  describe('given an answer whose usage is above the window minus the reserve', () => {
    const builder = answering(THRESHOLD + 1);

    it('asks for a threshold compaction named after the triggering event', () => {
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([compactionFor(builder.lastId)]);
    });

    it('names another attempt for another event, and the same one when the event comes again', () => {
      const first = spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId, 'a'));
      const again = spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId, 'a'));
      const other = spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId, 'b'));
      expect(again.commands).toEqual(first.commands);
      expect(other.commands).not.toEqual(first.commands);
    });

    it('asks for nothing when compaction is disabled', () => {
      spec
        .given(builder.entries, { compaction: { enabled: false } })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .thenNothing();
    });

    it('uses the session reserve (a larger reserve lowers the threshold)', () => {
      const below = answering(150000);
      spec
        .given(below.entries, { compaction: { reserveTokens: 60000 } })
        .when(appendedTrigger(below.entries, below.lastId))
        .then([compactionFor(below.lastId)]);
    });
  });

  describe('given an answer exactly at the threshold', () => {
    const builder = answering(THRESHOLD);

    it('asks for nothing (the comparison is strictly greater)', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given an answer above the threshold that did not complete', () => {
    it.each(['error', 'aborted'] as const)('asks for nothing when it stopped with %s', (stopReason) => {
      const builder = session()
        .user('Go on')
        .assistant('', { stopReason, errorMessage: 'network down', usage: { input: 190000 } });
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given an answer above the threshold that a later compaction made stale (reference defect 8)', () => {
    const builder = answering(190000);
    const staleAnswer = builder.lastId;
    builder.compaction({ firstKeptEntryId: 'e0001', tokensBefore: 190000 }).user('And now?');

    it('asks for nothing: the usage measured the context the compaction replaced', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, staleAnswer)).thenNothing();
    });
  });

  describe('given an answer above the threshold followed by a newer answer', () => {
    const builder = answering(190000);
    const older = builder.lastId;
    answering(191000, builder);

    it('leaves the decision to the newer answer', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, older)).thenNothing();
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([compactionFor(builder.lastId)]);
    });
  });

  describe('given an answer above the threshold on a branch the user has left', () => {
    const builder = session().user('First question').assistant('First answer');
    const fork = builder.lastId;
    answering(190000, builder);
    const abandoned = builder.lastId;
    builder.branchFrom(fork).user('Another direction');

    it('asks for nothing', () => {
      spec
        .given(builder.entries, { leafId: builder.lastId })
        .when(appendedTrigger(builder.entries, abandoned))
        .thenNothing();
    });
  });

  describe('given an answer above the threshold that calls a tool (issue 13)', () => {
    const builder = session()
      .user('Run the tests')
      .assistantToolCalls([{ name: 'bash' }], { usage: { input: THRESHOLD, output: 100 } });
    const call = builder.lastId;

    it('asks for nothing, not even a pruning: the tool loop is still running', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, call)).thenNothing();
    });

    it('asks for nothing when its result came in the same batch', () => {
      const answered = session()
        .user('Run the tests')
        .assistantToolCalls([{ name: 'bash' }], { usage: { input: THRESHOLD, output: 100 } })
        .toolResult('bash', 'ok');
      spec.given(answered.entries).when(appendedTrigger(answered.entries, 'e0002')).thenNothing();
    });

    it('compacts at the answer that ends the turn, after the result', () => {
      const loop = session()
        .user('Run the tests')
        .assistantToolCalls([{ name: 'bash' }], { usage: { input: THRESHOLD, output: 100 } })
        .toolResult('bash', 'ok')
        .assistant('All green.', { usage: { input: THRESHOLD + 50, output: 100 } });
      spec
        .given(loop.entries)
        .when(appendedTrigger(loop.entries, loop.lastId))
        .then([compactionFor(loop.lastId)]);
    });
  });

  describe('given an answer above the threshold that ended its turn, then a model change', () => {
    const builder = answering(THRESHOLD + 1);
    const answer = builder.lastId;
    builder.modelChange('anthropic/claude-sonnet-4-5');

    it('asks for the compaction at the leaf it saw (metadata does not supersede the answer)', () => {
      spec
        .given(builder.entries, { currentModel: 'test/model' })
        .when(appendedTrigger(builder.entries, answer))
        .then([compactionFor(answer, builder.lastId)]);
    });
  });

  describe('given a prompt after an answer above the threshold (the check before a prompt)', () => {
    it('compacts when the answer was in the middle of a tool loop the host broke off', () => {
      const builder = session()
        .user('Run the tests')
        .assistantToolCalls([{ name: 'bash' }], { usage: { input: THRESHOLD, output: 100 } })
        .toolResult('bash', 'ok')
        .user('Stop, do something else');
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([compactionFor(builder.lastId)]);
    });

    it('compacts when the answer ended its turn and no compaction followed it', () => {
      const builder = answering(THRESHOLD + 1).user('Next');
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([compactionFor(builder.lastId)]);
    });

    it('leaves the answer to the prompt: the answer alone asks for nothing once the prompt follows', () => {
      const builder = answering(THRESHOLD + 1);
      const answer = builder.lastId;
      builder.user('Next');
      spec.given(builder.entries).when(appendedTrigger(builder.entries, answer)).thenNothing();
    });

    it('asks for nothing when a compaction followed the answer', () => {
      const builder = answering(THRESHOLD + 1)
        .compaction({ firstKeptEntryId: 'e0001', tokensBefore: THRESHOLD + 1 })
        .user('Next');
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });

    it('asks for nothing once the prompt has its answer (it is handled late)', () => {
      const builder = answering(THRESHOLD + 1).user('Next');
      const prompt = builder.lastId;
      builder.assistant('Sure.', { usage: { input: 1000, output: 10 } });
      spec.given(builder.entries).when(appendedTrigger(builder.entries, prompt)).thenNothing();
    });

    it('asks for nothing when the answer was under the threshold', () => {
      const builder = answering(THRESHOLD).user('Next');
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });

    it('takes off what the pruning at the answer saved since its usage was measured', () => {
      const builder = withLargeResults();
      answering(LARGE_THRESHOLD + SAVED_BY_PRUNING, builder);
      const answer = builder.lastId;
      builder.user('Next');
      const given = { ...large, pruningSavedAfter: { [answer]: SAVED_BY_PRUNING } };
      const prunedAlready = new Map(
        ['e0003', 'e0004', 'e0005'].map((entryId) => [entryId, { tokens: 10000, prunedAt: 1 }] as const),
      );
      spec
        .given(builder.entries, { ...given, prunedResults: prunedAlready })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .thenNothing();
    });
  });

  describe('given an answer that succeeded although its input alone overflows the current model (issue 25)', () => {
    const builder = session()
      .user('Go on')
      .assistant('Partial', { usage: { input: 210000, output: 10 } });

    it('asks for a threshold compaction: the answer is above the threshold, and nothing is retried', () => {
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([compactionFor(builder.lastId)]);
    });
  });

  describe('given an answer that failed with a context overflow', () => {
    const builder = session()
      .user('Go on')
      .assistant('', {
        stopReason: 'error',
        errorMessage: 'prompt is too long: 213000 tokens > 200000 maximum',
        usage: { input: 210000, output: 0 },
      });

    it('leaves it to overflow recovery', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given large tool results before the answer', () => {
    it('records the pruning first, and compacts only when the context stays above the threshold', () => {
      const builder = withLargeResults();
      answering(LARGE_THRESHOLD + SAVED_BY_PRUNING + 1, builder);
      const pruning: SagaCommand = {
        type: 'PruneToolOutputs',
        data: {
          sessionId: SPEC_SESSION_ID,
          causationEventId: `event-of-${builder.lastId}`,
          prunedAt: SPEC_RECORDED_AT,
          results: [
            { entryId: 'e0005', tokens: 10000 },
            { entryId: 'e0004', tokens: 10000 },
            { entryId: 'e0003', tokens: 10000 },
          ],
          tokensSaved: SAVED_BY_PRUNING,
          answerEntryId: builder.lastId,
          idSeed: pruningSeedOf(`event-of-${builder.lastId}`),
        },
      };
      spec
        .given(builder.entries, large)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([pruning, compactionFor(builder.lastId)]);
    });

    it('does not compact when the pruning brings the context under the threshold', () => {
      const builder = withLargeResults();
      answering(LARGE_THRESHOLD + SAVED_BY_PRUNING, builder);
      const { commands } = spec
        .given(builder.entries, large)
        .when(appendedTrigger(builder.entries, builder.lastId));
      expect(commands.map((command) => command.type)).toEqual(['PruneToolOutputs']);
    });

    it('reuses the savings of a pruning already recorded for the same event instead of deciding again', () => {
      const builder = withLargeResults();
      answering(LARGE_THRESHOLD + SAVED_BY_PRUNING, builder);
      spec
        .given(builder.entries, { ...large, pruningSavedAfter: { [builder.lastId]: SAVED_BY_PRUNING } })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .thenNothing();
    });
  });
});
