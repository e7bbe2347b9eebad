// End-to-end harness for the sagas: the engine harness plus the SagasModule, whose runner
// consumes the SQLite store's subscription. Tests wait with `runner.drain()` (every saga event
// in the store handled, the runner's own writes included) instead of sleeping.
import type { CheckpointStore } from '@strata/event-store';
import type { AssistantMessage, SessionEntry } from '@strata/session';
import { defaultCheckpointStoreFor } from '../../apps/engine/src/sagas/saga-checkpoints';
import { SagaRunner } from '../../apps/engine/src/sagas/saga-runner.service';
import { SagasModule, type SagasModuleOptions } from '../../apps/engine/src/sagas/sagas.module';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { startEngine, type EngineHarness, type HarnessOptions } from './engine-harness';

export interface SagaHarness extends EngineHarness {
  readonly runner: SagaRunner;
  /** The checkpoint store beside the events (the SQLite database's table). */
  readonly checkpoints: CheckpointStore;
  /** Appends entries under the session's current leaf, each a child of the one before. */
  appendAtLeaf(sessionId: string, entries: readonly NewEntry[]): Promise<string[]>;
  /** The session's event types from `from` on. */
  eventTypes(sessionId: string, from?: number): Promise<string[]>;
}

/** An entry without the fields the harness fills in (id, parent, timestamp). */
export type NewEntry = SessionEntry extends infer Entry
  ? Entry extends SessionEntry
    ? Omit<Entry, 'id' | 'parentId' | 'timestamp'>
    : never
  : never;

export async function startSagaEngine(
  options: HarnessOptions & { readonly sagas?: SagasModuleOptions } = {},
): Promise<SagaHarness> {
  const engine = await startEngine({
    ...options,
    imports: [SagasModule.forRoot({ retryDelayMs: 10, ...options.sagas }), ...(options.imports ?? [])],
  });
  let appended = 0;
  return {
    ...engine,
    runner: engine.module.get(SagaRunner),
    checkpoints: defaultCheckpointStoreFor(engine.store),
    async appendAtLeaf(sessionId, entries) {
      let parentId = (await engine.load(sessionId)).leafId;
      const complete = entries.map((entry) => {
        appended += 1;
        const id = `n${String(appended).padStart(4, '0')}`;
        const full = {
          ...entry,
          id,
          parentId,
          timestamp: new Date(Date.UTC(2026, 1, 1, 0, 0, appended)).toISOString(),
        };
        parentId = id;
        return full as SessionEntry;
      });
      await engine.commands.execute(new AppendEntriesCommand(sessionId, complete));
      return complete.map((entry) => entry.id);
    },
    async eventTypes(sessionId, from = 0) {
      return (await engine.events(sessionId)).slice(from).map((event) => event.type);
    },
  };
}

/** An assistant message entry from the builder's default model. */
export function assistantEntry(overrides: Partial<AssistantMessage> = {}): NewEntry {
  return {
    type: 'message',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: overrides.stopReason === 'error' ? '' : 'Answer.' }],
      api: 'anthropic-messages',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      usage: { input: 1000, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: 1050 },
      stopReason: 'stop',
      timestamp: Date.UTC(2026, 1, 1),
      ...overrides,
    },
  };
}

export function userEntry(text: string): NewEntry {
  return { type: 'message', message: { role: 'user', content: text, timestamp: Date.UTC(2026, 1, 1) } };
}

/** A usage record whose context is `tokens`. */
export function usageOf(tokens: number): NonNullable<AssistantMessage['usage']> {
  return { input: tokens - 100, output: 100, cacheRead: 0, cacheWrite: 0, totalTokens: tokens };
}
