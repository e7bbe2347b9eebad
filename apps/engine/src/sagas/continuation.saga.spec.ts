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
