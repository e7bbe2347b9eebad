// Creating the engine's Nest application from a validated configuration: no framework body
// parser (the API reads bodies itself, with its size limits), the configured log level, the
// HTTP response metrics, and problem details for the requests Node's parser refuses. Used by
// `npm start` and by the end-to-end tests.
import type { INestApplication, LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { Server } from 'node:http';
import { AppModule } from './app.module';
import type { EngineConfig, EngineLogLevel } from './config/engine-config';
import { EngineMetrics } from './observability/engine-metrics.service';
import { accessLogMiddleware } from './observability/access-log';
import { responseMetrics } from './observability/response-metrics';
import { engineLogger } from './observability/engine-logger';
import { requestContextMiddleware } from './observability/request-context';
import { httpServerSpans } from './observability/tracing/http-server-spans';
import { telemetryStarted } from './observability/tracing/telemetry-sdk';
import { answerClientErrors } from './api/problem/client-error-answers';
import { EngineDrain } from './http/health/engine-drain';
import type { StrataApplicationOptions } from './http/strata-http.module';

const nestLevels: Readonly<Record<Exclude<EngineLogLevel, 'silent'>, LogLevel[]>> = {
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  log: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  verbose: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

export function nestLogLevels(level: EngineLogLevel): LogLevel[] | false {
  return level === 'silent' ? false : nestLevels[level];
}

export async function createEngineApplication(
  config: EngineConfig,
  options: StrataApplicationOptions = {},
): Promise<INestApplication> {
  const app = await NestFactory.create(AppModule.forRoot(config, options), {
    bodyParser: false,
    logger: engineLogger(nestLogLevels(config.logLevel), config.logFormat),
    abortOnError: false,
  });
  const server = app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void };
  server.disable?.('x-powered-by');
  if (telemetryStarted()) app.use(httpServerSpans());
  app.use(requestContextMiddleware({ keepContext: config.logFormat === 'json' || config.accessLog }));
  if (config.accessLog) app.use(accessLogMiddleware(config.logFormat));
  app.use(app.get(EngineDrain).middleware());
  app.use(responseMetrics(app.get(EngineMetrics)));
  answerClientErrors(app.getHttpServer() as Server);
  return app;
}
