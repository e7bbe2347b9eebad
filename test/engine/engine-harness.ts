// End-to-end harness: the engine module in a Nest testing module, on a SQLite store in a
// temporary file, with summarisers and hooks supplied by the test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { CommandBus } from '@nestjs/cqrs';
import { SqliteEventStore, type EventStore, type RecordedEvent } from '@strata/event-store';
import { loadSession, type LoadedSession } from '@strata/session-files';
import {
  buildSessionContext,
  sessionStreamName,
  type SessionEntry,
  type SessionHeader,
} from '@strata/session';
import type { Summarizer } from '@strata/summarizer';
import { EngineModule } from '../../apps/engine/src/sessions/engine.module';
import type { SessionHookHandlers } from '../../apps/engine/src/hooks/session-hook.types';
import type { Clock } from '../../apps/engine/src/shared/clock';
import type { EngineSettingsInput } from '../../apps/engine/src/settings/engine-settings.schema';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { StartSessionCommand } from '../../apps/engine/src/sessions/start-session/start-session.command';

export interface HarnessOptions {
  readonly summarizers?: readonly Summarizer[];
  readonly settings?: EngineSettingsInput;
  readonly hooks?: readonly SessionHookHandlers[];
  /** Where API keys are looked up (nothing by default). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
  /** Further modules (hook providers, for instance). */
  readonly imports?: ModuleImports;
  /** The engine's clock (the system clock by default). */
  readonly clock?: Clock;
}

type ModuleImports = NonNullable<Parameters<typeof Test.createTestingModule>[0]['imports']>;

export interface EngineHarness {
  readonly module: TestingModule;
  readonly commands: CommandBus;
  readonly store: EventStore;
  readonly storeFile: string;
  /** Starts a session and appends the entries in one batch. */
  seed(header: SessionHeader, entries: readonly SessionEntry[]): Promise<void>;
  load(sessionId: string): Promise<LoadedSession>;
  /** The session's events as recorded, oldest first. */
  events(sessionId: string): Promise<RecordedEvent[]>;
  /** The context of the session's current leaf. */
  context(sessionId: string): Promise<ReturnType<typeof buildSessionContext>>;
  close(): Promise<void>;
}

export const quietLogger = { log() {}, warn() {}, error() {}, debug() {}, verbose() {} };

export async function startEngine(options: HarnessOptions = {}): Promise<EngineHarness> {
  const directory = mkdtempSync(join(tmpdir(), 'strata-engine-'));
  const storeFile = join(directory, 'store.db');
  const store = new SqliteEventStore({ filename: storeFile });
  const module = await Test.createTestingModule({
    imports: [
      EngineModule.forRoot({
        store,
        settings: { tokenizer: 'chars4', ...options.settings },
        environment: options.environment ?? {},
        ...(options.summarizers !== undefined ? { summarizers: options.summarizers } : {}),
        ...(options.hooks !== undefined ? { hooks: options.hooks } : {}),
        ...(options.clock !== undefined ? { clock: options.clock } : {}),
      }),
      ...(options.imports ?? []),
    ],
  })
    .setLogger(quietLogger)
    .compile();
  await module.init();
  const commands = module.get(CommandBus);
  return {
    module,
    commands,
    store,
    storeFile,
    async seed(header, entries) {
      await commands.execute(new StartSessionCommand({ sessionId: header.id, cwd: header.cwd }));
      if (entries.length > 0) await commands.execute(new AppendEntriesCommand(header.id, entries));
    },
    load: (sessionId) => loadSession(store, sessionId),
    async events(sessionId) {
      const events: RecordedEvent[] = [];
      for await (const event of store.readStream(sessionStreamName(sessionId))) events.push(event);
      return events;
    },
    async context(sessionId) {
      const loaded = await loadSession(store, sessionId);
      return buildSessionContext(loaded.entries, loaded.leafId, { prunedResults: loaded.prunedResults });
    },
    async close() {
      await module.close();
      await store.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A clock that stands still until the test moves it. */
export class ManualClock implements Clock {
  constructor(private millis = Date.parse('2026-02-15T09:00:00.000Z')) {}

  now(): number {
    return this.millis;
  }

  advance(milliseconds: number): void {
    this.millis += milliseconds;
  }
}

/** The event types of a stream from revision `from` on. */
export function typesOf(events: readonly RecordedEvent[], from = 0): string[] {
  return events.slice(from).map((event) => event.type);
}
