// An erasure signed before it is carried out (decision 0018): the head to remove is read, an
// erasure entry naming it (who, when, why, the head) is written into the signed log, and only then
// is the stream erased, at exactly that head and with that time, so that the store's record
// states what the signed entry states. When an append moves the head in between, nothing is
// erased, and the erasure is signed again on the new head (an entry never carried out is harmless:
// it answers for no absence while the stream still holds its head).
import {
  ConcurrencyError,
  erasureHeadOf,
  type ErasureRecord,
  type ErasureRequest,
  type EventStore,
  type RecordedEvent,
} from '@strata/event-store';
import type { AnchorSigningKey } from '../anchors/anchor';
import type { SignedLog } from './signed-log';
import { erasureEntryBody } from './store-checkpoints';

/** Signs erasures into a store's log (`undefined`: the erasure is not signed, as before decision 0018). */
export interface ErasureSigner {
  readonly log: SignedLog;
  readonly key: AnchorSigningKey;
  readonly clock?: () => Date;
}

const ATTEMPTS = 5;

async function lastEventOf(store: EventStore, streamId: string): Promise<RecordedEvent | undefined> {
  for await (const event of store.readStream(streamId, { direction: 'backwards', maxCount: 1 })) return event;
  return undefined;
}

/** Erases the stream after signing the erasure; throws what `eraseStream` throws. */
export async function eraseSigned(
  store: EventStore,
  streamId: string,
  request: Omit<ErasureRequest, 'erasedAt' | 'expectedRevision'>,
  signer: ErasureSigner,
): Promise<ErasureRecord> {
  for (let attempt = 1; ; attempt += 1) {
    const last = await lastEventOf(store, streamId);
    const time = (signer.clock ?? (() => new Date()))();
    const erasedAt = time.toISOString();
    const record: ErasureRecord = {
      streamId,
      actor: request.actor,
      reason: request.reason,
      ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
      erasedAt,
      eventCount: last === undefined ? 0 : Number(last.revision + 1n),
      ...erasureHeadOf(last),
    };
    await signer.log.append(
      [
        {
          body: erasureEntryBody(record),
          time,
          ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
        },
      ],
      signer.key,
    );
    try {
      return await store.eraseStream(streamId, {
        ...request,
        erasedAt,
        ...(last !== undefined ? { expectedRevision: last.revision } : {}),
      });
    } catch (error) {
      if (!(error instanceof ConcurrencyError) || attempt >= ATTEMPTS) throw error;
    }
  }
}
