// Handing the events the runner reads to its processors. Each slot that reads the event's type
// past its start gets it, decoded once and only when one does; the others pass over its position.
// An erasure goes to the processors that erase, an event of a parked partition is passed over
// (and counted), an event that cannot be decoded is queued to be given up, and a message a
// processor does not accept is passed over. The runner reads on only while every processor has
// room (fewer than `maxQueued` events queued or running), so memory stays bounded.
import type { RecordedEvent } from '@strata/event-store';
import type { EventDecoder } from './processor';
import type { ProcessorSlot } from './processor-slot';

export function dispatchEvent<Message>(
  event: RecordedEvent,
  slots: readonly ProcessorSlot<Message>[],
  decode: EventDecoder<Message>,
): void {
  const interested = slots.filter((slot) => slot.wants(event));
  for (const slot of slots) if (!interested.includes(slot)) slot.pass(event.position);
  if (interested.length === 0) return;
  const decoded = decode(event);
  for (const slot of interested) {
    if (decoded.kind === 'pass') {
      slot.pass(event.position);
    } else if (decoded.kind === 'erased') {
      if (slot.processor.erase === undefined) slot.pass(event.position);
      else slot.enqueue(decoded.partition, { event, tenant: decoded.tenant, content: { kind: 'erased' } });
    } else if (slot.isParked(decoded.partition)) {
      slot.passParked(event.position);
    } else if (decoded.kind === 'invalid') {
      slot.enqueue(decoded.partition, {
        event,
        tenant: decoded.tenant,
        content: { kind: 'invalid', detail: decoded.detail },
      });
    } else if (slot.processor.accepts !== undefined && !slot.processor.accepts(decoded.message)) {
      slot.pass(event.position);
    } else {
      slot.enqueue(decoded.partition, {
        event,
        tenant: decoded.tenant,
        content: { kind: 'message', message: decoded.message },
      });
    }
  }
}

/** Waits while a processor has `maxQueued` events queued or running (or until `signal` aborts). */
export async function waitForRoom<Message>(
  slots: readonly ProcessorSlot<Message>[],
  maxQueued: number,
  signal: AbortSignal,
): Promise<void> {
  for (const slot of slots) {
    while (slot.load >= maxQueued && !signal.aborted) {
      await changedOrAborted(slot.whenChanged(), signal);
    }
  }
}

/** Resolves when `changed` does or `signal` aborts; the abort listener goes when `changed` wins. */
function changedOrAborted(changed: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const onAbort = (): void => resolve();
    signal.addEventListener('abort', onAbort, { once: true });
    void changed.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
