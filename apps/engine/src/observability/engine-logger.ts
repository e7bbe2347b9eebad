// The engine's log lines. `STRATA_LOG_FORMAT=text` (the default) keeps Nest's lines, coloured only
// when stdout is a terminal (and NO_COLOR is unset). `json` writes one JSON object per line to
// stdout, whatever the level: `level`, `pid`, `timestamp` (epoch milliseconds) and `time` (ISO
// 8601), `message`, `context`, and for the lines
// written while a request is handled its `requestId`; and `traceId` and `spanId`: those of the
// active span when tracing (tracing/), else the caller's when it sent a W3C `traceparent`
// (request-context.ts).
import { ConsoleLogger, type LogLevel } from '@nestjs/common';
import { currentRequest } from './request-context';
import { activeSpanIds } from './tracing/engine-spans';

export const logFormats = ['text', 'json'] as const;
/** `text`: Nest's lines (coloured on a terminal only); `json`: one JSON object per line on stdout. */
export type EngineLogFormat = (typeof logFormats)[number];

type JsonLogOptions = Parameters<ConsoleLogger['printAsJson']>[1];

class JsonLinesLogger extends ConsoleLogger {
  protected override getJsonLogObject(message: unknown, options: JsonLogOptions) {
    const record = super.getJsonLogObject(message, options);
    const request = currentRequest();
    const span = activeSpanIds();
    return {
      ...record,
      time: new Date(record.timestamp).toISOString(),
      ...(request === undefined
        ? {}
        : {
            requestId: request.requestId,
            ...(request.traceId !== undefined ? { traceId: request.traceId, spanId: request.spanId } : {}),
          }),
      ...span,
    };
  }

  protected override printAsJson(message: unknown, options: JsonLogOptions): void {
    super.printAsJson(message, { ...options, writeStreamType: 'stdout' });
  }
}

/** Whether text lines may carry colour codes: on a terminal, unless NO_COLOR asks otherwise. */
export function colourfulOutput(
  stream: { readonly isTTY?: boolean } = process.stdout,
  environment: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  return stream.isTTY === true && (environment['NO_COLOR'] ?? '') === '';
}

/** The logger of the engine's Nest application; `false` logs nothing (level `silent`). */
export function engineLogger(levels: LogLevel[] | false, format: EngineLogFormat): ConsoleLogger | false {
  if (levels === false) return false;
  return format === 'json'
    ? new JsonLinesLogger({ logLevels: levels, json: true, colors: false })
    : new ConsoleLogger({ logLevels: levels, colors: colourfulOutput() });
}

/**
 * How the engine's own notices (its start, its stop) are written: in text, `Strata engine: …`
 * lines on stderr as always; in JSON, log objects on stdout like every other line (level `log`,
 * context `Engine`), with any `fields` beside the message.
 */
export function engineNotices(
  format: EngineLogFormat,
  write: { stdout(text: string): void; stderr(text: string): void } = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
): (message: string, fields?: Readonly<Record<string, unknown>>) => void {
  if (format === 'text') return (message) => write.stderr(`Strata engine: ${message}\n`);
  return (message, fields = {}) => {
    const now = Date.now();
    const record = {
      level: 'log',
      pid: process.pid,
      timestamp: now,
      message,
      context: 'Engine',
      ...fields,
      time: new Date(now).toISOString(),
    };
    write.stdout(`${JSON.stringify(record)}\n`);
  };
}
