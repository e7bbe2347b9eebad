// GET /ready: whether the engine can serve — the store answers and the projections have caught
// up with it. While it cannot, 503 with the same body, `status: "not_ready"`, plus a `reason`
// that says why and a `detail` (readiness-reason.ts), and `Retry-After` (load balancers read the
// status; scripts read `status` and `checks`, which keep their shape). Liveness is GET /health, which answers throughout a catch-up (decision 0010). With
// API keys configured, a caller without a valid key is told the aggregate health only (ok flags,
// state, lag): positions tell how many events the store holds, and the store's error may name
// where it is. Once a stop has begun, 503 with `reason: "draining"` (engine-drain.ts).
import { Controller, Get, Inject, Req, Res } from '@nestjs/common';
import type { EventStore } from '@strata/event-store';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import { EVENT_STORE } from '../../shared/injection-tokens';
import { TenantDirectory } from '../../tenancy/tenant-directory';
import { presentsValidKey } from '../../api/tenant.guard';
import type { ApiOperation } from '../../api/openapi/api-operation';
import { responseSchema } from '../../api/openapi/api-schemas';
import { ReadModels } from '../../read-side/read-models.service';
import { notReadyOf } from './readiness-reason';
import { DRAINING_RETRY_AFTER_SECONDS, EngineDrain } from './engine-drain';

const STORE_CHECK_TIMEOUT_MS = 2_000;

export const readinessResponse = responseSchema(
  'Readiness',
  z.object({
    status: z.enum(['ready', 'not_ready']),
    reason: z
      .enum(['catching_up', 'store_unavailable', 'read_models_failed', 'read_models_stopped', 'draining'])
      .optional()
      .describe('Why the engine is not ready (503 only)'),
    detail: z.string().optional().describe('The reason in words (503 only)'),
    checks: z.object({
      store: z.object({
        ok: z.boolean(),
        detail: z.string().optional().describe('with a valid key (or without keys configured)'),
      }),
      projections: z.object({
        ok: z.boolean(),
        state: z.string(),
        appliedPosition: z
          .string()
          .nullable()
          .optional()
          .describe('with a valid key (or without keys configured)'),
        headPosition: z
          .string()
          .nullable()
          .optional()
          .describe('with a valid key (or without keys configured)'),
        positionsBehind: z.string().nullable(),
      }),
    }),
  }),
);

type Readiness = z.infer<typeof readinessResponse>;

export const healthResponse = responseSchema('Health', z.object({ status: z.literal('ok') }));

async function withTimeout<Value>(work: Promise<Value>, milliseconds: number): Promise<Value> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${milliseconds} ms`)), milliseconds);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

@Controller()
export class ReadinessController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readModels: ReadModels,
    @Inject(TenantDirectory) private readonly directory: TenantDirectory,
    private readonly drain: EngineDrain,
  ) {}

  @Get('ready')
  async ready(
    @Req() request: IncomingMessage,
    @Res({ passthrough: true }) response: ServerResponse,
  ): Promise<Readiness> {
    let store = { ok: true, detail: 'reachable' };
    let lag: Awaited<ReturnType<ReadModels['lag']>> | undefined;
    try {
      await withTimeout(this.store.streamRevision('strata-readiness-probe'), STORE_CHECK_TIMEOUT_MS);
      lag = await withTimeout(this.readModels.lag(), STORE_CHECK_TIMEOUT_MS);
    } catch (error) {
      store = { ok: false, detail: error instanceof Error ? error.message : String(error) };
    }
    const state = this.readModels.runner.status().state;
    const projectionsOk = state === 'live';
    const positionsBehind = lag?.positionsBehind.toString() ?? null;
    const checks: Readiness['checks'] = presentsValidKey(this.directory, request)
      ? {
          store,
          projections: {
            ok: projectionsOk,
            state,
            appliedPosition: lag?.appliedPosition?.toString() ?? null,
            headPosition: lag?.headPosition?.toString() ?? null,
            positionsBehind,
          },
        }
      : { store: { ok: store.ok }, projections: { ok: projectionsOk, state, positionsBehind } };
    const notReady = this.drain.draining
      ? {
          reason: 'draining' as const,
          detail: 'the engine is stopping: it finishes the requests in progress and takes no new ones',
          retryAfterSeconds: DRAINING_RETRY_AFTER_SECONDS,
        }
      : notReadyOf(store.ok, state);
    if (notReady !== undefined) {
      response.statusCode = 503;
      response.setHeader('Retry-After', String(notReady.retryAfterSeconds));
      return { status: 'not_ready', reason: notReady.reason, detail: notReady.detail, checks };
    }
    response.statusCode = 200;
    return { status: 'ready', checks };
  }
}

export const healthOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/health',
    operationId: 'health',
    tag: 'operations',
    summary: 'Liveness: the process answers',
    responses: { 200: { description: 'Alive', schema: healthResponse } },
    problems: [],
    public: true,
  },
  {
    method: 'get',
    path: '/ready',
    operationId: 'ready',
    tag: 'operations',
    summary:
      'Readiness: the store answers and the projections have caught up (positions and details with a valid key)',
    description:
      'While the engine is not ready it answers 503 with `Retry-After` and the same body, `status: "not_ready"`, ' +
      'with a `reason`: `catching_up` (the read models are catching up with the store, at start-up or ' +
      'during a rebuild), `store_unavailable`, `read_models_failed` (they start again shortly) or ' +
      '`read_models_stopped`, and a `detail`. `GET /health` answers throughout.',
    responses: {
      200: { description: 'Ready', schema: readinessResponse },
      503: { description: 'Not ready (the same body, with reason and detail)', schema: readinessResponse },
    },
    problems: [],
    public: true,
  },
];
