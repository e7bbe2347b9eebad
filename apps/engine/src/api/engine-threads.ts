// The engine's worker threads (`STRATA_WORKER_THREADS` threads, `STRATA_WORKER_QUEUE` waiting
// tasks), shared by everything that must not hold the event loop answering every tenant: a
// session file's import (session-import-work.ts) and a large append's body (append-body-work.ts).
// A full queue is refused at once (TaskQueueFullError, answered 503 with Retry-After); every task
// is counted in `strata_worker_tasks_total` by task and outcome.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { TaskPool, TaskQueueFullError, type TaskErrorReviver } from '@strata/threads';
import type { TransferListItem } from 'node:worker_threads';
import { ENGINE_CONFIG } from './http-tokens';
import type { EngineConfig } from '../config/engine-config';
import { EngineMetrics } from '../observability/engine-metrics.service';

export interface EngineTaskOptions {
  /** The task's name in the metrics. */
  readonly metric: string;
  readonly revive?: TaskErrorReviver;
  readonly transfer?: readonly TransferListItem[];
}

@Injectable()
export class EngineThreads implements OnModuleDestroy {
  private readonly pool: TaskPool;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    private readonly metrics: EngineMetrics,
  ) {
    this.pool = new TaskPool(config.workers);
  }

  /** Runs `task` of the module at `module` on a thread, counted. */
  async run<Result>(
    module: string,
    task: string,
    args: unknown,
    options: EngineTaskOptions,
  ): Promise<Result> {
    try {
      const result = await this.pool.run<Result>(module, task, args, options);
      this.metrics.workerTasks.increment({ task: options.metric, outcome: 'ok' });
      return result;
    } catch (error) {
      const outcome = error instanceof TaskQueueFullError ? 'refused' : 'failed';
      this.metrics.workerTasks.increment({ task: options.metric, outcome });
      throw error;
    }
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.close();
  }
}
