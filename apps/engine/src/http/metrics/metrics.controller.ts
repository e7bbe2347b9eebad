// GET /metrics: the Prometheus text exposition. It carries counts by event type, outcome,
// route, provider and status only, nothing of any tenant's content; still, counts and positions
// tell how much the store holds, so with API keys configured a caller without a valid key gets
// the health gauges only (the projections live, their lag). `STRATA_METRICS_TOKEN` names a
// bearer token that reads every metric and nothing else, so that Prometheus need not hold a
// tenant's key. The gauges of state held elsewhere (projections, sagas' slots) are read here,
// when scraped.
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EngineConfig } from '../../config/engine-config';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { ReadModels } from '../../read-side/read-models.service';
import { TenantDirectory } from '../../tenancy/tenant-directory';
import { presentsValidKey } from '../../api/tenant.guard';
import { z } from 'zod';
import { EngineMetrics } from '../../observability/engine-metrics.service';
import { SagaRunner, SESSIONS_PER_SUMMARY_SLOT } from '../../sagas/saga-runner.service';
import { SummarySlots } from '../../sessions/compact-session/summary-slots.service';

/** Whether the request's bearer token is the metrics token (compared by its SHA-256, in constant time). */
function presentsMetricsToken(tokenHash: string | undefined, request: IncomingMessage): boolean {
  if (tokenHash === undefined) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match?.[1] === undefined) return false;
  const presented = createHash('sha256').update(match[1]).digest();
  return timingSafeEqual(presented, Buffer.from(tokenHash, 'hex'));
}

/** What a caller without a valid key is shown: whether the projections are live, and their lag. */
function isHealthMetric(metrics: EngineMetrics, name: string): boolean {
  return name === 'strata_projections_live' || name === metrics.projectionLag.lagName;
}

@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: EngineMetrics,
    private readonly readModels: ReadModels,
    private readonly sagas: SagaRunner,
    private readonly summarySlots: SummarySlots,
    @Inject(TenantDirectory) private readonly directory: TenantDirectory,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
  ) {}

  @Get('metrics')
  async metricsText(@Req() request: IncomingMessage, @Res() response: ServerResponse): Promise<void> {
    await this.refreshProjectionGauges();
    this.refreshSlotGauges();
    const text =
      presentsValidKey(this.directory, request) || presentsMetricsToken(this.config.metricsTokenHash, request)
        ? await this.metrics.render()
        : await this.metrics.render((name) => isHealthMetric(this.metrics, name));
    response.statusCode = 200;
    response.setHeader('Content-Type', this.metrics.contentType);
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
  }

  private async refreshProjectionGauges(): Promise<void> {
    const status = this.readModels.runner.status();
    this.metrics.projectionsLive.set({}, status.state === 'live' ? 1 : 0);
    this.metrics.sessionsSetAsideNow.set({}, this.readModels.setAsideSessions());
    try {
      const lag = await this.readModels.lag();
      this.metrics.projectionLag.set(lag.positionsBehind, lag.appliedPosition);
    } catch {
      this.metrics.projectionLag.unknown();
    }
  }

  private refreshSlotGauges(): void {
    const sagas = this.sagas.status();
    this.metrics.sagaSlots.set({
      sagaSlots: SESSIONS_PER_SUMMARY_SLOT * this.config.sagas.concurrency,
      sagaSlotsInUse: sagas.running,
      sagaEventsQueued: sagas.queued,
      summarySlots: this.config.sagas.concurrency,
      summarySlotsInUse: this.summarySlots.running,
      summariesQueued: this.summarySlots.waiting,
    });
  }
}

export const metricsOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tag: 'operations',
    summary: 'Prometheus metrics (text exposition format 0.0.4); without a valid key only the health gauges',
    responses: { 200: { description: 'The metrics', schema: z.string(), mediaType: 'text/plain' } },
    problems: [],
    public: true,
  },
];
