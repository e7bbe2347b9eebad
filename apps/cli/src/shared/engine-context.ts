// Runs engine commands in-process for the CLI: a Nest application context of the engine module
// (no HTTP) on the store the `--store` URL or `STRATA_STORE` names, closed afterwards. Nest's
// log goes to stderr (warnings and errors only), so stdout stays the command's output. The
// settings file is read and the store asked once for a stream's revision before the engine
// starts, so a bad file or a store that cannot be reached is one line naming it, not the log of
// an engine failing to start.
import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { resolveStoreUrl } from '@strata/event-store';
import { EngineModule, readEngineSettingsFile } from '@strata/engine';
import type { CliIo } from '../cli-io';
import { withEventStore } from './event-store-option';
import { storeUnreachable } from './user-mistakes';

/** Read to learn that the store answers; it need not exist. */
const PROBE_STREAM = 'strata-cli-probe';

export interface EngineContextOptions {
  readonly storeUrl?: string;
  /** A JSON settings file; `STRATA_SETTINGS` otherwise. */
  readonly settingsFile?: string;
}

function stderrLogger(io: CliIo): LoggerService {
  const write = (level: string) => (message: unknown, context?: unknown) =>
    io.stderr(`[${level}]${typeof context === 'string' ? ` ${context}:` : ''} ${String(message)}\n`);
  return { log: () => undefined, warn: write('warn'), error: write('error') };
}

export async function withEngine<Result>(
  io: CliIo,
  options: EngineContextOptions,
  work: (commands: CommandBus) => Promise<Result>,
): Promise<Result> {
  const settings =
    options.settingsFile !== undefined ? readEngineSettingsFile(options.settingsFile) : undefined;
  const store = resolveStoreUrl(options.storeUrl, io.env);
  await withEventStore(store, io, (probed) => probed.streamRevision(PROBE_STREAM));
  const context = await NestFactory.createApplicationContext(
    EngineModule.forRoot({
      store,
      environment: io.env,
      cwd: io.cwd,
      ...(settings !== undefined ? { settings } : {}),
    }),
    { logger: stderrLogger(io), abortOnError: false },
  );
  try {
    return await work(context.get(CommandBus));
  } catch (error) {
    throw storeUnreachable(error, store) ?? error;
  } finally {
    await context.close();
  }
}
