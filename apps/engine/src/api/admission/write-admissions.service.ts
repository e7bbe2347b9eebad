// The admission of write requests (DESIGN.md decision 11, docs/decisions/0009): before its body
// is read, each write asks the fair queue (`FairWriteQueue`) for a place in the engine's budget
// of bytes and writes in progress and in its tenant's share. A write that cannot be admitted
// within its tenant's queue and the configured wait is refused with `Retry-After`: 429
// `write_share_exceeded` when its tenant's own share holds it, 503 `write_capacity_exhausted`
// when the engine's budget does. A write whose client goes away while it waits leaves the queue.
import { Inject, Injectable } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { EngineConfig } from '../../config/engine-config';
import { EngineMetrics } from '../../observability/engine-metrics.service';
import { FairWriteQueue, type WriteRefusal } from '../../shared/fair-write-queue';
import { ENGINE_CONFIG } from '../http-tokens';
import { ApiError } from '../problem/api-errors';
import { declaredBodyBytes, earlyAnswerHeaders } from '../request/request-input';

/** The `reason` of each refusal's problem document. */
const refusalReasons: Readonly<Record<WriteRefusal, string>> = {
  tenant_share: 'write_share_exceeded',
  engine_budget: 'write_capacity_exhausted',
};

@Injectable()
export class WriteAdmissions {
  private readonly queue: FairWriteQueue;
  private readonly waitMs: number;
  private readonly retryAfter: string;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    private readonly metrics: EngineMetrics,
  ) {
    const { queueWaitMs, ...bounds } = config.writeAdmission;
    this.queue = new FairWriteQueue(bounds);
    this.waitMs = queueWaitMs;
    this.retryAfter = String(Math.max(1, Math.ceil(queueWaitMs / 1000)));
    this.observe();
  }

  /**
   * Waits until a write of `tenant` may read its body (at most `limitBytes`, its route's limit);
   * the function to call when the write ends. Throws the refusal, 429 or 503 with `Retry-After`.
   */
  admit(tenant: string, request: IncomingMessage, limitBytes: number): Promise<() => void> {
    const queuedAt = process.hrtime.bigint();
    return new Promise((resolve, reject) => {
      const admitted = (release: () => void, waited: boolean): void => {
        this.metrics.writesAdmitted.increment({ waited: String(waited) });
        if (waited) {
          this.metrics.writeAdmissionWait.observe({}, Number(process.hrtime.bigint() - queuedAt) / 1e9);
        }
        this.observe();
        resolve(() => {
          release();
          this.observe();
        });
      };
      const refused = (refusal: WriteRefusal): void => {
        this.metrics.writesRefused.increment({ reason: refusalReasons[refusal] });
        this.observe();
        reject(this.refusal(refusal, request));
      };
      const socket = request.socket;
      let timer: NodeJS.Timeout | undefined;
      let clientGone = (): void => undefined;
      const stopWaiting = (): void => {
        clearTimeout(timer);
        socket.off('close', clientGone);
      };
      const entry = this.queue.enter(tenant, declaredBodyBytes(request, limitBytes), (release) => {
        stopWaiting();
        admitted(release, true);
      });
      switch (entry.outcome) {
        case 'admitted':
          admitted(entry.release, false);
          return;
        case 'refused':
          refused(entry.refusal);
          return;
        case 'queued':
          this.observe();
          clientGone = () => {
            stopWaiting();
            if (entry.withdraw() === undefined) return;
            this.metrics.writesWithdrawn.increment();
            this.observe();
            reject(new ApiError('unavailable', 'the client went away while its write waited'));
          };
          if (socket.destroyed) return clientGone();
          socket.once('close', clientGone);
          timer = setTimeout(() => {
            stopWaiting();
            const refusal = entry.withdraw();
            if (refusal !== undefined) refused(refusal);
          }, this.waitMs);
          return;
        default: {
          const unhandled: never = entry;
          throw new Error(`unhandled admission ${JSON.stringify(unhandled)}`);
        }
      }
    });
  }

  private refusal(refusal: WriteRefusal, request: IncomingMessage): ApiError {
    const { bounds } = this.queue;
    const headers = { 'Retry-After': this.retryAfter, ...earlyAnswerHeaders(request) };
    const extensions = { reason: refusalReasons[refusal] };
    switch (refusal) {
      case 'tenant_share':
        return new ApiError(
          'too_many_requests',
          `this tenant's writes in progress and waiting take its share of ${bounds.bytesPerTenant} bytes ` +
            `and ${bounds.writesPerTenant} writes (STRATA_WRITE_BYTES_IN_FLIGHT_PER_TENANT, ` +
            'STRATA_WRITE_TENANT_CONCURRENCY, STRATA_WRITE_QUEUE_PER_TENANT, STRATA_WRITE_QUEUE_WAIT_MS); ' +
            'nothing was read or written: send it again after Retry-After',
          extensions,
          headers,
        );
      case 'engine_budget':
        return new ApiError(
          'unavailable',
          `the writes in progress take the engine's budget of ${bounds.bytes} bytes and ${bounds.writes} ` +
            'writes (STRATA_WRITE_BYTES_IN_FLIGHT, STRATA_WRITE_CONCURRENCY); nothing was read or ' +
            'written: send it again after Retry-After',
          extensions,
          headers,
        );
      default: {
        const unhandled: never = refusal;
        throw new Error(`unhandled refusal ${String(unhandled)}`);
      }
    }
  }

  /** The gauges of what is in progress and what waits. */
  private observe(): void {
    const usage = this.queue.usage();
    this.metrics.writeBytesInFlight.set({}, usage.bytes);
    this.metrics.writesInFlight.set({}, usage.writes);
    this.metrics.writesQueued.set({}, usage.queued);
  }
}
