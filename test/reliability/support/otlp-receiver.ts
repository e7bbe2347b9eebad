// An OTLP/HTTP receiver on loopback for end-to-end tests of the engine's telemetry: it accepts
// `POST /v1/traces`, `/v1/metrics` and `/v1/logs` in the OTLP JSON encoding (the engine is started
// with OTEL_EXPORTER_OTLP_PROTOCOL=http/json), answers each with an empty success, and keeps the
// spans and metric data points it was sent, flattened with their resource's attributes.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

interface OtlpAnyValue {
  readonly stringValue?: string | undefined;
  readonly intValue?: number | string | undefined;
  readonly doubleValue?: number | undefined;
  readonly boolValue?: boolean | undefined;
  readonly arrayValue?: { readonly values?: readonly OtlpAnyValue[] | undefined } | undefined;
}

const anyValueSchema: z.ZodType<OtlpAnyValue> = z.lazy(() =>
  z.object({
    stringValue: z.string().optional(),
    intValue: z.union([z.number(), z.string()]).optional(),
    doubleValue: z.number().optional(),
    boolValue: z.boolean().optional(),
    arrayValue: z.object({ values: z.array(anyValueSchema).optional() }).optional(),
  }),
);
const attributesSchema = z.array(z.object({ key: z.string(), value: anyValueSchema })).optional();

const tracesSchema = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes: attributesSchema }).optional(),
        scopeSpans: z
          .array(
            z.object({
              spans: z
                .array(
                  z.object({
                    traceId: z.string(),
                    spanId: z.string(),
                    parentSpanId: z.string().optional(),
                    name: z.string(),
                    kind: z.number(),
                    attributes: attributesSchema,
                    status: z
                      .object({ code: z.number().optional(), message: z.string().optional() })
                      .optional(),
                  }),
                )
                .optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
});

const dataPointSchema = z.object({
  attributes: attributesSchema,
  count: z.union([z.number(), z.string()]).optional(),
  sum: z.number().optional(),
  asDouble: z.number().optional(),
  asInt: z.union([z.number(), z.string()]).optional(),
});
const pointsSchema = z.object({ dataPoints: z.array(dataPointSchema).optional() }).optional();

const metricsSchema = z.object({
  resourceMetrics: z
    .array(
      z.object({
        scopeMetrics: z
          .array(
            z.object({
              metrics: z
                .array(
                  z.object({
                    name: z.string(),
                    unit: z.string().optional(),
                    histogram: pointsSchema,
                    sum: pointsSchema,
                    gauge: pointsSchema,
                  }),
                )
                .optional(),
            }),
          )
          .optional(),
      }),
    )
    .optional(),
});

export type Attributes = Readonly<Record<string, unknown>>;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP's numbering: 1 internal, 2 server, 3 client. */
  readonly kind: number;
  readonly attributes: Attributes;
  readonly status: { readonly code?: number | undefined; readonly message?: string | undefined };
  readonly resource: Attributes;
}

export interface ReceivedDataPoint {
  readonly metric: string;
  readonly unit: string;
  readonly attributes: Attributes;
  readonly count: number;
  readonly sum: number;
}

function valueOf(value: OtlpAnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: z.infer<typeof attributesSchema>): Attributes {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function spansOf(body: unknown): ReceivedSpan[] {
  return (tracesSchema.parse(body).resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        ...span,
        parentSpanId: span.parentSpanId ?? '',
        attributes: attributesOf(span.attributes),
        status: span.status ?? {},
        resource,
      })),
    );
  });
}

function dataPointsOf(body: unknown): ReceivedDataPoint[] {
  return (metricsSchema.parse(body).resourceMetrics ?? []).flatMap((resourceMetrics) =>
    (resourceMetrics.scopeMetrics ?? []).flatMap((scope) =>
      (scope.metrics ?? []).flatMap(
        (metric) =>
          (metric.histogram ?? metric.sum ?? metric.gauge)?.dataPoints?.map((point) => ({
            metric: metric.name,
            unit: metric.unit ?? '',
            attributes: attributesOf(point.attributes),
            count: Number(point.count ?? 0),
            sum: Number(point.sum ?? point.asDouble ?? point.asInt ?? 0),
          })) ?? [],
      ),
    ),
  );
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly dataPoints: ReceivedDataPoint[] = [];
  /** Every request, by path (`/v1/traces`…), counted: a connection the engine should not make shows. */
  readonly requests: string[] = [];

  private constructor(
    private readonly server: http.Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (request, response) => receiver.handle(request, response));
    return receiver;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = (request.url ?? '/').split('?')[0] ?? '/';
      this.requests.push(path);
      const json = String(request.headers['content-type']).startsWith('application/json');
      if (request.method !== 'POST' || !json) {
        response.writeHead(415, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (path === '/v1/traces') this.spans.push(...spansOf(body));
      if (path === '/v1/metrics') this.dataPoints.push(...dataPointsOf(body));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }
}
