// When the engine starts the OpenTelemetry SDK: only for an OTLP endpoint, never when disabled.
// (That nothing is loaded otherwise is checked on the engine process: test/reliability/opentelemetry.)
import { telemetryRequested } from './telemetry-sdk';

describe('telemetry', () => {
  it('is off when no OTLP endpoint is named, whatever else OTEL_* says', () => {
    expect(telemetryRequested({})).toBe(false);
    expect(telemetryRequested({ OTEL_SERVICE_NAME: 'strata', OTEL_TRACES_SAMPLER: 'always_on' })).toBe(false);
    expect(telemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBe(false);
  });

  it('is on for the general, the traces or the metrics endpoint', () => {
    expect(telemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(
      telemetryRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }),
    ).toBe(true);
    expect(
      telemetryRequested({ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/v1/metrics' }),
    ).toBe(true);
  });

  it('is off when OTEL_SDK_DISABLED is true, endpoint or not', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(telemetryRequested({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(telemetryRequested({ ...endpoint, OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(telemetryRequested({ ...endpoint, OTEL_SDK_DISABLED: 'false' })).toBe(true);
  });
});
