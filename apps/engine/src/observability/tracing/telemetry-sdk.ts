// The OpenTelemetry SDK of `npm start` (issue 26, item 1), configured by the standard `OTEL_*`
// variables alone. It starts when an OTLP endpoint is named (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
// the traces or metrics one) and `OTEL_SDK_DISABLED` is not `true`; otherwise nothing of the SDK
// is loaded and the `@opentelemetry/api` calls the engine makes stay the API's no-ops. Once
// started, everything else (exporter protocol, headers, sampler, batch delays, metric interval,
// resource attributes, propagators) is the SDK's reading of the environment. The draining stop
// flushes and shuts it down (`stopTelemetry`).
import type * as OpenTelemetrySdk from '@opentelemetry/sdk-node';

type Environment = Readonly<Record<string, string | undefined>>;

/** The endpoints whose presence turns telemetry on. */
const ENDPOINT_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
] as const;

/** The service name when neither `OTEL_SERVICE_NAME` nor `OTEL_RESOURCE_ATTRIBUTES` gives one. */
export const DEFAULT_SERVICE_NAME = 'strata-engine';

let running: OpenTelemetrySdk.NodeSDK | undefined;

function isSet(environment: Environment, variable: string): boolean {
  return (environment[variable] ?? '').trim() !== '';
}

/** Whether the environment asks for telemetry: an OTLP endpoint named, the SDK not disabled. */
export function telemetryRequested(environment: Environment): boolean {
  if ((environment['OTEL_SDK_DISABLED'] ?? '').trim().toLowerCase() === 'true') return false;
  return ENDPOINT_VARIABLES.some((variable) => isSet(environment, variable));
}

/** Whether this process started the SDK: spans and GenAI metrics are recorded and exported. */
export function telemetryStarted(): boolean {
  return running !== undefined;
}

/**
 * Starts the SDK when `environment` asks for it (see `telemetryRequested`); true when it did.
 * Call it once, before the application is built: the GenAI instruments and the HTTP spans are
 * set up only when it has started.
 */
export function startTelemetry(environment: Environment): boolean {
  if (running !== undefined || !telemetryRequested(environment)) return running !== undefined;
  // required here, not imported: an engine without telemetry never loads the SDK
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = require('@opentelemetry/sdk-node') as typeof OpenTelemetrySdk;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { version } = require('../../../../../package.json') as { version: string };
  const { defaultResource, resourceFromAttributes } = sdk.resources;
  // the SDK's environment detector runs after this resource is merged, so OTEL_SERVICE_NAME and
  // OTEL_RESOURCE_ATTRIBUTES override these defaults
  const resource = defaultResource().merge(
    resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME, 'service.version': version }),
  );
  running = new sdk.NodeSDK({ resource });
  running.start();
  return true;
}

/**
 * Exports what is pending and shuts the SDK down, within `timeoutMs`; nothing when it never
 * started. Never rejects: a collector that is away must not fail the stop.
 */
export async function stopTelemetry(timeoutMs = 5_000): Promise<void> {
  const sdk = running;
  if (sdk === undefined) return;
  running = undefined;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([sdk.shutdown().catch(() => undefined), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
