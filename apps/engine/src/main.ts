// `npm start`: validates the configuration from the environment, serves the engine (port 3000,
// the SQLite store in ./data and the offline summariser unless configured otherwise), and says
// where the API and its documentation are.
import 'reflect-metadata';
import {
  ConfigurationError,
  describeStore,
  loadEngineConfig,
  type EngineConfig,
} from './config/engine-config';
import { createEngineApplication } from './http/engine-application';
import { SettingsValidationError } from './settings/settings-validation-error';
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
    `  health:         ${url}/health, ${url}/ready, metrics: ${url}/metrics`,
    `  store:          ${describeStore(config.storeLocation)}`,
    `  tenancy:        ${tenancy}`,
    '',
  ].join('\n');
}

async function bootstrap(): Promise<void> {
  const config = loadEngineConfig(process.env);
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
  if (error instanceof ConfigurationError || error instanceof SettingsValidationError) {
    process.stderr.write(`Strata engine: ${error.message}\n`);
  } else {
    process.stderr.write(
      `Strata engine failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  process.exitCode = 1;
});
