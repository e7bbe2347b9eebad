import { session, type SessionBuilder } from '@strata/testing';
import { overflowRecoverySaga } from './overflow-recovery.saga';
import { autoCompactionAttemptId } from './saga-ids';
import type { SagaCommand } from './saga-messages';
import { SPEC_SESSION_ID, SagaSpecification, appendedTrigger } from './saga-specification';

const spec = SagaSpecification.for(overflowRecoverySaga);
const OVERFLOW_ERROR = 'prompt is too long: 213000 tokens > 200000 maximum';

function overflowing(
  builder: SessionBuilder = session().user('Summarise the logs'),
  errorMessage: string = OVERFLOW_ERROR,
): SessionBuilder {
  return builder.assistant('', { stopReason: 'error', errorMessage, usage: { input: 0, output: 0 } });
}

function recoveryFor(entryId: string, atLeafId: string = entryId): SagaCommand {
  return {
    type: 'AutoCompact',
    data: {
      sessionId: SPEC_SESSION_ID,
      causationEventId: `event-of-${entryId}`,
      trigger: 'overflow',
      attemptId: autoCompactionAttemptId(`event-of-${entryId}`, 'overflow'),
      atLeafId,
    },
  };
}

describe('overflow recovery', () => {
  describe('given an answer that failed with a context overflow of the current model', () => {
    const builder = overflowing();

    it('asks for an overflow compaction named after the triggering event', () => {
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([recoveryFor(builder.lastId)]);
    });

    it('asks for nothing when compaction is disabled', () => {
      spec
        .given(builder.entries, { compaction: { enabled: false } })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .thenNothing();
    });

    it('asks for nothing when the session has since moved to another model', () => {
      spec
        .given(builder.entries, { currentModel: 'openai/gpt-5' })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .thenNothing();
    });
  });

  describe('given an answer that failed because input and max_tokens exceed the window (Anthropic)', () => {
    const builder = overflowing(
      session().user('Summarise the logs'),
      '400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 197733 + 21333 > 200000, decrease input length or `max_tokens` and try again"}}',
    );

    it('asks for an overflow compaction', () => {
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([recoveryFor(builder.lastId)]);
    });
  });

  describe('given an answer throttled with an overflow-like wording (Bedrock)', () => {
    const builder = overflowing(
      session().user('Summarise the logs'),
      'ThrottlingException: Too many tokens, please wait before trying again.',
    );

    it('asks for nothing: waiting, not compacting, is the cure', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given an answer that failed for another reason', () => {
    const builder = session()
      .user('Hello')
      .assistant('', { stopReason: 'error', errorMessage: '529 overloaded', usage: { input: 0, output: 0 } });

    it('asks for nothing', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given an answer that succeeded although its input exceeded the window (issue 25)', () => {
    const builder = session()
      .user('Hello')
      .assistant('Cut short', { usage: { input: 200001, output: 5 } });

    it('asks for nothing: the answer stands, the threshold check compacts without a retry', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given an answer that failed for another reason with an input above the window', () => {
    const builder = session()
      .user('Hello')
      .assistant('', {
        stopReason: 'error',
        errorMessage: '500 internal error',
        usage: { input: 200001, output: 0 },
      });

    it('recovers: the usage shows that the request overflowed', () => {
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([recoveryFor(builder.lastId)]);
    });
  });

  describe('given an answer with tool calls whose input exceeded the window (issue 13)', () => {
    const builder = session()
      .user('Hello')
      .assistantToolCalls([{ name: 'bash' }], { usage: { input: 200001, output: 5 } });

    it('asks for nothing in the middle of the tool loop: the turn ends with a later answer', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given an overflow error of an answer that also holds tool calls', () => {
    const builder = session()
      .user('Hello')
      .assistantToolCalls([{ name: 'bash' }], {
        stopReason: 'error',
        errorMessage: OVERFLOW_ERROR,
        usage: { input: 0, output: 0 },
      });

    it('recovers: an error ends the loop', () => {
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([recoveryFor(builder.lastId)]);
    });
  });

  describe('given an overflow the host has already answered with a new prompt', () => {
    const builder = overflowing();
    const failed = builder.lastId;
    builder.user('Try again');

    it('recovers at the leaf the recovery saw, the prompt', () => {
      spec
        .given(builder.entries)
        .when(appendedTrigger(builder.entries, failed))
        .then([recoveryFor(failed, builder.lastId)]);
    });
  });

  describe('given an aborted answer whose input exceeded the window', () => {
    const builder = session()
      .user('Hello')
      .assistant('', { stopReason: 'aborted', usage: { input: 200001, output: 0 } });

    it('asks for nothing', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, builder.lastId)).thenNothing();
    });
  });

  describe('given an overflow that an older compaction precedes but the latest compaction follows (reference defect 7)', () => {
    const builder = session().user('First').assistant('One');
    builder.compaction({ firstKeptEntryId: 'e0001', tokensBefore: 150000 });
    overflowing(builder.user('Second'));
    const failed = builder.lastId;
    builder.compaction({ firstKeptEntryId: 'e0004', tokensBefore: 199000 });

    it('asks for nothing: the latest compaction already rebuilt the context', () => {
      spec.given(builder.entries).when(appendedTrigger(builder.entries, failed)).thenNothing();
    });
  });

  describe('given a turn that was already recovered once and whose retry overflowed again', () => {
    const builder = overflowing();
    builder.compaction({ firstKeptEntryId: 'e0001', tokensBefore: 200000 });
    const recoveryId = builder.lastId;
    overflowing(builder);

    it('does not compact a second time for the same turn', () => {
      spec
        .given(builder.entries, { compactionTriggers: { [recoveryId]: 'overflow' } })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .thenNothing();
    });

    it('still recovers when the compaction in between was not an overflow recovery', () => {
      spec
        .given(builder.entries, { compactionTriggers: { [recoveryId]: 'threshold' } })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([recoveryFor(builder.lastId)]);
    });

    it('recovers again once a new turn overflows', () => {
      overflowing(builder.user('Try something smaller'));
      spec
        .given(builder.entries, { compactionTriggers: { [recoveryId]: 'overflow' } })
        .when(appendedTrigger(builder.entries, builder.lastId))
        .then([recoveryFor(builder.lastId)]);
    });
  });
});
