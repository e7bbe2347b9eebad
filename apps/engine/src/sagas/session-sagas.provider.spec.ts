import type { CommandBus } from '@nestjs/cqrs';
import { session } from '@strata/testing';
import { RequestContinuationCommand } from './request-continuation/request-continuation.command';
import { RunSagaStepCommand } from './run-saga-step.command';
import { RunSagaStepHandler } from './run-saga-step.handler';
import { SagaFeed, SagaNotAttachedError } from './saga-feed';
import type { SagaSessionView } from './saga-messages';
import { compactionCompletedTrigger, sagaViewOf } from './saga-specification';
import { SessionSagas } from './session-sagas.provider';

const view = sagaViewOf(session().user('Hello').assistant('Hi').entries);
const trigger = compactionCompletedTrigger('attempt-1', 'threshold');
const brokenView = {
  ...view,
  get settings(): SagaSessionView['settings'] {
    throw new Error('broken view');
  },
} satisfies SagaSessionView;

interface Wired {
  readonly feed: SagaFeed;
  readonly executed: unknown[];
  failCommands: boolean;
  stop(): void;
}

/** The continuation wrapper subscribed as Nest's EventBus does, its steps run by the real handler. */
function wired(): Wired {
  const feed = new SagaFeed();
  const state: Wired = { feed, executed: [], failCommands: false, stop: () => undefined };
  const bus = {
    execute: (command: unknown) => {
      state.executed.push(command);
      return state.failCommands ? Promise.reject(new Error('store unavailable')) : Promise.resolve({});
    },
  } as unknown as CommandBus;
  const handler = new RunSagaStepHandler(bus);
  const subscription = new SessionSagas(feed)
    .continuation()
    .subscribe((command) => void handler.execute(command as RunSagaStepCommand));
  state.stop = () => subscription.unsubscribe();
  return state;
}

describe('the @Saga wrappers fed by the runner', () => {
  describe('given the continuation saga subscribed to the feed', () => {
    it('turns a delivery into one step whose commands run and whose outcome reaches the runner', async () => {
      const { feed, executed } = wired();

      const outcomes = await feed.deliver(['continuation'], trigger, view);

      expect(outcomes).toMatchObject([{ saga: 'continuation', status: 'completed' }]);
      expect(outcomes[0]?.commands.map((command) => command.type)).toEqual(['ContinueAfterCompaction']);
      expect(executed).toHaveLength(1);
      expect(executed[0]).toBeInstanceOf(RequestContinuationCommand);
    });

    it('reports a saga that throws as a failed step and keeps the saga subscribed', async () => {
      const { feed } = wired();

      const failed = await feed.deliver(['continuation'], trigger, brokenView);
      const after = await feed.deliver(['continuation'], trigger, view);

      expect(failed).toMatchObject([{ status: 'failed', error: new Error('broken view') }]);
      expect(after).toMatchObject([{ status: 'completed' }]);
      expect(feed.isAttached('continuation')).toBe(true);
    });

    it('reports a command that fails as a failed step', async () => {
      const setup = wired();
      setup.failCommands = true;

      const outcomes = await setup.feed.deliver(['continuation'], trigger, view);

      expect(outcomes).toMatchObject([{ status: 'failed', error: new Error('store unavailable') }]);
    });
  });

  describe('given a saga nobody subscribed', () => {
    it('fails its delivery at once instead of waiting', async () => {
      const { feed } = wired();

      const outcomes = await feed.deliver(['threshold-compaction'], trigger, view);

      expect(outcomes).toMatchObject([{ status: 'failed' }]);
      expect(outcomes[0]?.status === 'failed' && outcomes[0].error).toBeInstanceOf(SagaNotAttachedError);
    });

    it('lets the runner wait until it subscribes, or until the runner stops', async () => {
      const feed = new SagaFeed();
      const stopping = new AbortController();
      const attached = feed.whenAttached(['continuation'], stopping.signal);
      const subscription = new SessionSagas(feed).continuation().subscribe();
      await expect(attached).resolves.toBeUndefined();
      subscription.unsubscribe();

      const waiting = feed.whenAttached(['continuation'], stopping.signal);
      stopping.abort(new Error('stopping'));
      await expect(waiting).rejects.toThrow('stopping');
    });
  });
});
