// How `npm start` stops (issue 26, Kubernetes semantics). At SIGTERM or SIGINT the engine drains:
// `/ready` answers 503 `draining` at once, new requests are answered 503 with `Retry-After`, and
// the requests in progress run to their end within `STRATA_SHUTDOWN_TIMEOUT_MS` (25 s by default,
// under Kubernetes' 30 s grace period). Then the application closes (event streams ended, the
// read models' checkpoints stored), with a few seconds of its own at most: an attempt still
// waiting for a slow model is left open, for the next start's recovery to take over as after a
// crash. The spans and metrics not yet exported are flushed (tracing/telemetry-sdk.ts, 5 s at
// most), and the process exits 0. A second signal stops waiting for the requests in progress.
import type { INestApplication } from '@nestjs/common';
import type { EngineConfig } from './config/engine-config';
import { EngineDrain } from './http/health/engine-drain';
import { stopTelemetry } from './observability/tracing/telemetry-sdk';

/** The least time closing the application is given once draining is over, deadline or not. */
const CLOSE_GRACE_MS = 3_000;

function delay(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds).unref());
}

/** Makes SIGTERM and SIGINT drain and stop the engine, then exit 0. */
export function stopOnSignals(
  app: INestApplication,
  config: EngineConfig,
  log: (line: string) => void,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  const drain = app.get(EngineDrain);
  let stopping = false;
  let stopWaiting: () => void = () => undefined;
  const waitingStopped = new Promise<boolean>((resolve) => {
    stopWaiting = () => resolve(false);
  });

  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    const started = Date.now();
    const timeoutMs = config.shutdownTimeoutMs;
    drain.begin(started);
    log(
      `${signal}: draining — /ready answers 503, new requests 503; ` +
        `${drain.requestsInProgress} request(s) in progress get up to ${timeoutMs} ms to finish`,
    );
    const idle = await Promise.race([drain.whenIdle(timeoutMs), waitingStopped]);
    if (!idle) log(`closing with ${drain.requestsInProgress} request(s) still in progress`);
    const closeBudget = Math.max(CLOSE_GRACE_MS, started + timeoutMs - Date.now());
    const closed = await Promise.race([app.close().then(() => true), delay(closeBudget).then(() => false)]);
    log(
      closed
        ? `stopped after ${Date.now() - started} ms`
        : `stopped after ${Date.now() - started} ms; work still running (an attempt waiting for its model) is left for the next start's recovery`,
    );
    await stopTelemetry();
    exit(0);
  };

  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      log(`${signal} again: no longer waiting for the requests in progress`);
      stopWaiting();
      return;
    }
    stopping = true;
    stop(signal).catch((error: unknown) => {
      log(`the stop failed: ${error instanceof Error ? error.message : String(error)}`);
      exit(1);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** The engine could not listen where it was told to (its message is one line). */
export class CannotListenError extends Error {
  override readonly name = 'CannotListenError';
}

/** One line for a start that failed because the address could not be listened on, else undefined. */
export function listenFailure(error: unknown, config: EngineConfig): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${config.host ?? 'all interfaces'}, port ${config.port}`;
  if (code === 'EADDRINUSE') {
    return `cannot listen on ${where}: another program already listens there (set PORT, or STRATA_HOST)`;
  }
  if (code === 'EACCES') return `cannot listen on ${where}: not allowed (a port below 1024 needs privileges)`;
  if (code === 'EADDRNOTAVAIL')
    return `cannot listen on ${where}: this machine has no such address (STRATA_HOST)`;
  return undefined;
}
