// `npm start`: validates the configuration from the environment and the settings file, serves
// the engine (port 3000, the SQLite store in ./data and the offline summariser unless configured
// otherwise), and says where the API and its documentation are and which settings are in effect.
// Invalid configuration or settings are listed, problem by problem, before anything starts. A
// store that cannot be reached yet is waited for (STRATA_STORE_WAIT_MS) before the application
// is built.
import 'reflect-metadata';
import { openEventStore } from '@strata/event-store';
import {
  ConfigurationError,
  describeStore,
  loadEngineConfig,
  type EngineConfig,
} from './config/engine-config';
import { EngineAnchors } from './anchors/engine-anchors';
import { createEngineApplication, nestLogLevels } from './engine-application';
import { engineLogger, engineNotices } from './observability/engine-logger';
import { startTelemetry } from './observability/tracing/telemetry-sdk';
import { CannotListenError, listenFailure, stopOnSignals } from './engine-stop';
import { loadEngineSettings, settingsFilePath } from './settings/engine-settings';
import { SettingsValidationError } from './settings/settings-validation-error';
import { startupMessage } from './startup-message';
import { StoreAccessDeniedError, StoreUnreachableError, waitForStore } from './startup/wait-for-store';
import { UiAssets } from './ui/ui-assets';

/** Waits, printing each try, until the store answers (an EventStoreDB node may still be starting). */
async function storeReachable(config: EngineConfig): Promise<void> {
  const store = openEventStore(config.storeUrl, { cwd: config.cwd, sqlite: config.sqlite });
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
  const settings = loadEngineSettings(process.env, config.cwd);
  startTelemetry(process.env);
  await storeReachable(config);
  const app = await createEngineApplication(config, { settings });
  // Nest logs a failed listen itself, in colour and with its prefix; the one line below says it
  app.useLogger(false);
  try {
    await (config.host !== undefined ? app.listen(config.port, config.host) : app.listen(config.port));
  } catch (error) {
    const line = listenFailure(error, config);
    if (line === undefined) throw error;
    throw new CannotListenError(line);
  } finally {
    app.useLogger(engineLogger(nestLogLevels(config.logLevel), config.logFormat));
  }
  const notice = engineNotices(config.logFormat);
  stopOnSignals(app, config, (line) => notice(line));
  const shownHost =
    config.host === undefined || config.host === '0.0.0.0' || config.host === '::'
      ? 'localhost'
      : config.host;
  const port = Number(new URL(await app.getUrl()).port) || config.port;
  const anchors = app.get(EngineAnchors);
  const message = startupMessage({
    config,
    url: `http://${shownHost}:${port}`,
    settings,
    settingsFile: settingsFilePath(process.env, config.cwd),
    environment: process.env,
    viewerMissing: app.get(UiAssets).missing(),
    anchors: {
      enabled: anchors.scheduler !== undefined,
      keyId: anchors.key.keyId,
      keyFile: anchors.keyFile,
      keyCreated: anchors.keyCreated,
      publicKeyPem: anchors.key.publicKeyPem,
    },
  });
  if (config.logFormat === 'text') process.stdout.write(message);
  else {
    const [first = '', ...details] = message.trimEnd().split('\n');
    notice(first, { url: `http://${shownHost}:${port}`, details: details.map((line) => line.trim()) });
  }
}

bootstrap().catch((error: unknown) => {
  if (error instanceof SettingsValidationError) {
    process.stderr.write(
      `Strata engine: ${error.message}\nThe engine did not start. Every setting is described in the README, "Settings file".\n`,
    );
  } else if (
    error instanceof ConfigurationError ||
    error instanceof StoreUnreachableError ||
    error instanceof StoreAccessDeniedError ||
    error instanceof CannotListenError
  ) {
    process.stderr.write(`Strata engine: ${error.message}\n`);
  } else {
    process.stderr.write(
      `Strata engine failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  // at once: the application may hold timers and handles that would keep the process running
  process.exit(1);
});
