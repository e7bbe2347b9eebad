// `npm start`: validates the configuration from the environment, serves the engine (port 3000,
// the SQLite store in ./data and the offline summariser unless configured otherwise), and says
// where the API and its documentation are. A store that cannot be reached yet is waited for
// (STRATA_STORE_WAIT_MS) before the application is built.
import 'reflect-metadata';
import { openEventStore } from '@strata/event-store';
import {
  ConfigurationError,
  describeStore,
  loadEngineConfig,
  type EngineConfig,
} from './config/engine-config';
import { createEngineApplication } from './engine-application';
import { SettingsValidationError } from './settings/settings-validation-error';
import { StoreUnreachableError, waitForStore } from './startup/wait-for-store';
import { TenantDirectory } from './tenancy/tenant-directory';

function startupMessage(config: EngineConfig, url: string): string {
  const directory = new TenantDirectory(config.apiKeys);
  const tenancy = directory.isSingleTenant
    ? 'single-tenant (no API keys configured: every request is tenant "default"; set STRATA_API_KEYS to require keys)'
    : `${directory.tenants().length} tenant(s) by API key: ${directory.tenants().join(', ')}`;
  return [
    `Strata engine listening on ${url}`,
    `  API:            ${url}/sessions`,
    `  documentation:  ${url}/docs (OpenAPI: ${url}/docs/openapi.json)`,
    `  event stream:   ${url}/events`,
    `  audit viewer:   ${url}/ui`,
    `  health:         ${url}/health, ${url}/ready, metrics: ${url}/metrics`,
    `  store:          ${describeStore(config.storeLocation)}`,
    `  tenancy:        ${tenancy}`,
    '',
  ].join('\n');
}

/** Waits, printing each try, until the store answers (an EventStoreDB node may still be starting). */
async function storeReachable(config: EngineConfig): Promise<void> {
  const store = openEventStore(config.storeUrl, { cwd: config.cwd });
  try {
    await waitForStore(store, {
      timeoutMs: config.storeWaitMs,
      storeDescription: describeStore(config.storeLocation),
      onWaiting: (message) => process.stderr.write(`Strata engine: ${message}\n`),
    });
  } finally {
    await store.close();
  }
}

async function bootstrap(): Promise<void> {
  const config = loadEngineConfig(process.env);
  await storeReachable(config);
  const app = await createEngineApplication(config);
  app.enableShutdownHooks();
  await (config.host !== undefined ? app.listen(config.port, config.host) : app.listen(config.port));
  const shownHost =
    config.host === undefined || config.host === '0.0.0.0' || config.host === '::'
      ? 'localhost'
      : config.host;
  const port = Number(new URL(await app.getUrl()).port) || config.port;
  process.stdout.write(startupMessage(config, `http://${shownHost}:${port}`));
}

bootstrap().catch((error: unknown) => {
  if (
    error instanceof ConfigurationError ||
    error instanceof SettingsValidationError ||
    error instanceof StoreUnreachableError
  ) {
    process.stderr.write(`Strata engine: ${error.message}\n`);
  } else {
    process.stderr.write(
      `Strata engine failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exitCode = 1;
});
