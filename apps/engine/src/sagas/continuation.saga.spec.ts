import { AUTO_CONTINUE_PROMPT } from '@strata/session';
import { session } from '@strata/testing';
import { continuationSaga } from './continuation.saga';
import { continuationSeedOf } from './saga-ids';
import {
  SPEC_RECORDED_AT,
  SPEC_SESSION_ID,
  SagaSpecification,
  compactionCompletedTrigger,
} from './saga-specification';

const spec = SagaSpecification.for(continuationSaga);
const entries = session().user('Hello').assistant('Hi').entries;

describe('continuation after compaction', () => {
  describe('given a completed threshold compaction with auto-continue on', () => {
    it('asks the agent to continue with the synthetic prompt', () => {
      spec
        .given(entries)
        .when(compactionCompletedTrigger('attempt-1', 'threshold'))
        .then([
          {
            type: 'ContinueAfterCompaction',
            data: {
              sessionId: SPEC_SESSION_ID,
              causationEventId: 'event-of-attempt-1',
              causationAttemptId: 'attempt-1',
              idSeed: continuationSeedOf('event-of-attempt-1'),
              reason: 'auto_continue',
              message: {
                role: 'user',
                content: AUTO_CONTINUE_PROMPT,
                synthetic: true,
                timestamp: SPEC_RECORDED_AT,
              },
            },
          },
        ]);
      expect(AUTO_CONTINUE_PROMPT).toBe('Continue if you have next steps.');
    });
  });

  describe('given a completed threshold compaction made before a prompt (issue 13)', () => {
    it('asks for nothing: the user message is what the agent answers next', () => {
      const prompted = session()
        .user('Hello')
        .assistant('Hi')
        .user('Next')
        .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 190000 }).entries;
      spec.given(prompted).when(compactionCompletedTrigger('attempt-1', 'threshold')).thenNothing();
    });
  });

  describe('given a completed compaction after which the host went on into a tool loop', () => {
    const compacted = () =>
      session()
        .user('Hello')
        .assistant('Hi')
        .compaction({ firstKeptEntryId: 'e0001', tokensBefore: 190000 })
        .user('Run it')
        .assistantToolCalls([{ name: 'bash' }]);

    it.each(['threshold', 'overflow'] as const)(
      'asks for nothing after a %s compaction while a tool call awaits its result',
      (trigger) => {
        const entries = compacted().entries;
        spec.given(entries).when(compactionCompletedTrigger('attempt-1', trigger)).thenNothing();
      },
    );

    it('asks for nothing while the loop awaits the answer to the tool result', () => {
      const entries = compacted().toolResult('bash', 'ok').entries;
      spec.given(entries).when(compactionCompletedTrigger('attempt-1', 'threshold')).thenNothing();
    });
  });

  describe('given a completed threshold compaction with auto-continue off', () => {
    it('asks for nothing', () => {
      spec
        .given(entries, { compaction: { autoContinue: false } })
        .when(compactionCompletedTrigger('attempt-1', 'threshold'))
        .thenNothing();
    });
  });

  describe('given a completed overflow compaction', () => {
    it('asks for the failed request to be retried, without a prompt, whatever auto-continue says', () => {
      spec
        .given(entries, { compaction: { autoContinue: false } })
        .when(compactionCompletedTrigger('attempt-2', 'overflow'))
        .then([
          {
            type: 'ContinueAfterCompaction',
            data: {
              sessionId: SPEC_SESSION_ID,
              causationEventId: 'event-of-attempt-2',
              causationAttemptId: 'attempt-2',
              idSeed: continuationSeedOf('event-of-attempt-2'),
              reason: 'overflow_retry',
            },
          },
        ]);
    });
  });

  describe('given a completed manual compaction', () => {
    it('asks for nothing', () => {
      spec.given(entries).when(compactionCompletedTrigger('attempt-3', 'manual')).thenNothing();
    });
  });

  describe('given compaction disabled', () => {
    it('asks for nothing after any compaction', () => {
      for (const trigger of ['threshold', 'overflow'] as const) {
        spec
          .given(entries, { compaction: { enabled: false } })
          .when(compactionCompletedTrigger('attempt-4', trigger))
          .thenNothing();
      }
    });
  });
});
