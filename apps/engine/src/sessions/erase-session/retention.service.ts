// Runs retention in the engine: a pass every `STRATA_RETENTION_INTERVAL_MS` (one minute by
// default) while the settings name a rule, each pass bounded (`DEFAULT_RETENTION_BATCH` sessions),
// the tenants taking turns to be first. Passes never overlap; a failed pass is logged and the
// next one tries again.
import {
  Inject,
  Injectable,
  Logger,
  Optional,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import type { EventStore } from '@strata/event-store';
import type { ErasureSigner } from '@strata/integrity';
import { ERASURE_SIGNER } from '../../shared/session-erasure';
import type { Clock } from '../../shared/clock';
import { CLOCK, ENGINE_SETTINGS, EVENT_STORE } from '../../shared/injection-tokens';
import type { EngineSettings } from '../../settings/engine-settings.schema';
import { describeError } from '../../shared/attempt-errors';
import { ReadModels } from '../../read-side/read-models.service';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { EngineConfig } from '../../config/engine-config';
import {
  DEFAULT_RETENTION_BATCH,
  eraseRetentionCandidates,
  retentionCandidates,
  type RetentionPassResult,
} from './retention';

@Injectable()
export class RetentionService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Retention');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<readonly RetentionPassResult[]> | undefined;
  private turn = 0;
  private stopped = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly readModels: ReadModels,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Optional() @Inject(ERASURE_SIGNER) private readonly signer?: ErasureSigner,
  ) {}

  onApplicationBootstrap(): void {
    if (Object.keys(this.settings.retention).length === 0) return;
    this.timer = setInterval(
      () => void this.runPass().catch(() => undefined),
      this.config.retentionIntervalMs,
    );
    this.timer.unref();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
  }

  /** One pass now (or the one under way); what it erased and skipped. */
  runPass(batch = DEFAULT_RETENTION_BATCH): Promise<readonly RetentionPassResult[]> {
    if (this.running !== undefined) return this.running;
    this.running = this.pass(batch).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(batch: number): Promise<readonly RetentionPassResult[]> {
    const rules = this.settings.retention;
    const tenants = Object.keys(rules).sort();
    if (tenants.length === 0 || this.stopped) return [];
    const first = this.turn % tenants.length;
    this.turn += 1;
    const order = [...tenants.slice(first), ...tenants.slice(0, first)];
    try {
      await this.readModels.requireReached(await this.readModels.storeHead());
      const catalog = this.readModels.projections.catalog;
      const candidates = await retentionCandidates(
        rules,
        this.clock.now(),
        (tenant, idleBefore, limit) => catalog.listIdleSessions({ tenant, idleBefore, limit }),
        batch,
        order,
      );
      const results = await eraseRetentionCandidates(this.store, candidates, this.signer);
      for (const result of results) {
        if (result.outcome.kind === 'erased') {
          this.logger.log(`erased session ${result.candidate.sessionId}: ${result.candidate.reason}`);
        }
      }
      if (results.length > 0) {
        const lag = await this.readModels.lag();
        await this.readModels.reach(lag.headPosition);
      }
      return results;
    } catch (error) {
      this.logger.error(`a retention pass failed: ${describeError(error)}; the next pass tries again`);
      throw error;
    }
  }
}
