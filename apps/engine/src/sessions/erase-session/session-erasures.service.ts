// Erasure as the HTTP API and retention use it: the audited erasure of one session of a tenant
// (shared/session-erasure.ts), then a short wait until this engine's read models have read the
// erasure record from the store (so the answer is followed by reads that no longer find the
// session), and the tenant's list of erasure records.
import { Inject, Injectable, Optional } from '@nestjs/common';
import type { ErasureSigner } from '@strata/integrity';
import type { ErasureRecord, EventStore } from '@strata/event-store';
import { sessionIdOfStream } from '@strata/projections';
import { EVENT_STORE } from '../../shared/injection-tokens';
import {
  ERASURE_SIGNER,
  eraseSession,
  erasureTenant,
  type SessionErasureRequest,
} from '../../shared/session-erasure';
import { ReadModels } from '../../read-side/read-models.service';

/** An erasure record as the API answers it: the record and the session it erased. */
export interface SessionErasureView extends ErasureRecord {
  readonly sessionId: string;
}

export function sessionErasureView(record: ErasureRecord): SessionErasureView {
  return { ...record, sessionId: sessionIdOfStream(record.streamId) ?? record.streamId };
}

export interface ErasurePage {
  readonly items: readonly SessionErasureView[];
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
}

@Injectable()
export class SessionErasures {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readModels: ReadModels,
    @Optional() @Inject(ERASURE_SIGNER) private readonly signer?: ErasureSigner,
  ) {}

  /** Erases the session (see `eraseSession`) and waits for this engine's read models to forget it. */
  async erase(sessionId: string, request: SessionErasureRequest): Promise<SessionErasureView> {
    const record = await eraseSession(this.store, sessionId, request, this.signer);
    const lag = await this.readModels.lag();
    await this.readModels.reach(lag.headPosition);
    return sessionErasureView(record);
  }

  /** The tenant's erasures of sessions, oldest first, paged. */
  async list(tenant: string, offset: number, limit: number): Promise<ErasurePage> {
    const records = (await this.store.listErasures()).filter(
      (record) => erasureTenant(record) === tenant && sessionIdOfStream(record.streamId) !== undefined,
    );
    return {
      items: records.slice(offset, offset + limit).map(sessionErasureView),
      total: records.length,
      offset,
      limit,
    };
  }
}
