// Runs engine commands in-process for the CLI: a Nest application context of the engine module
// (no HTTP) on the store the `--store` URL or `STRATA_STORE` names, closed afterwards. Nest's
// log goes to stderr (warnings and errors only), so stdout stays the command's output.
import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { resolveStoreUrl } from '@strata/event-store';
import { EngineModule, readEngineSettingsFile } from '@strata/engine';
import type { CliIo } from '../cli-io';

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
  const context = await NestFactory.createApplicationContext(
    EngineModule.forRoot({
      store: resolveStoreUrl(options.storeUrl, io.env),
      environment: io.env,
      cwd: io.cwd,
      ...(settings !== undefined ? { settings } : {}),
    }),
    { logger: stderrLogger(io), abortOnError: false },
  );
  try {
    return await work(context.get(CommandBus));
  } finally {
    await context.close();
  }
}
