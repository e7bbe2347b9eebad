// Attempt ids. A caller reacting to a stored event (a saga) derives the id from that event, so
// a redelivered trigger names the same attempt and the engine returns its recorded outcome
// instead of running it again; other callers get a fresh id.
import { randomUUID } from 'node:crypto';
import { derivedEventId } from '@strata/event-store';

/** The attempt id for work of `purpose` triggered by the stored event `triggerEventId`. */
export function attemptIdFromTrigger(triggerEventId: string, purpose: string): string {
  return derivedEventId(`${purpose}:${triggerEventId}`, 0);
}

export function newAttemptId(): string {
  return randomUUID();
}
