// GET /metrics: the Prometheus text exposition. Public (no API key): it carries counts by
// event type, outcome and status only, nothing of any tenant's content.
import { Controller, Get, Res } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { ApiOperation } from '../http/openapi/api-operation';
import { ReadModels } from '../http/read-side/read-models.service';
import { z } from 'zod';
import { EngineMetrics } from './engine-metrics.service';
import { PROMETHEUS_CONTENT_TYPE } from './metrics-registry';

@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: EngineMetrics,
    private readonly readModels: ReadModels,
  ) {}

  @Get('metrics')
  async metricsText(@Res() response: ServerResponse): Promise<void> {
    await this.refreshProjectionGauges();
    const text = this.metrics.registry.render();
    response.statusCode = 200;
    response.setHeader('Content-Type', PROMETHEUS_CONTENT_TYPE);
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
  }

  private async refreshProjectionGauges(): Promise<void> {
    const status = this.readModels.runner.status();
    this.metrics.projectionsLive.set({}, status.state === 'live' ? 1 : 0);
    this.metrics.sessionsSetAsideNow.set({}, this.readModels.setAsideSessions());
    try {
      const lag = await this.readModels.lag();
      this.metrics.projectionLag.set({}, Number(lag.positionsBehind));
      this.metrics.projectionAppliedPosition.set({}, Number(lag.appliedPosition ?? -1n));
    } catch {
      this.metrics.projectionLag.set({}, NaN);
    }
  }
}

export const metricsOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    tag: 'operations',
    summary: 'Prometheus metrics (text exposition format 0.0.4)',
    responses: { 200: { description: 'The metrics', schema: z.string(), mediaType: 'text/plain' } },
    problems: [],
    public: true,
  },
];
