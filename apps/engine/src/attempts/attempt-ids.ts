// Attempt ids and the seeds of an attempt's events. A caller reacting to a stored event (a saga)
// derives the attempt id from that event, so a redelivered trigger names the same attempt and the
// engine returns its recorded outcome instead of running it again; other callers get a fresh id
// or choose one. An attempt id names an attempt within its session only: the event ids written
// for it derive from seeds that name the session too (`sessionIdSeed`), so the same attempt id in
// two sessions (two tenants) never shares an event id. `attemptIdFromTrigger` keeps its former
// derivation: its input is a stored event id, which no client chooses, and a trigger redelivered
// across an upgrade must still name the attempt it started before.
import { randomUUID } from 'node:crypto';
import { derivedEventId, sessionIdSeed } from '@strata/event-store';
import type { AttemptKind } from './running-attempts.service';

/** The attempt id for work of `purpose` triggered by the stored event `triggerEventId`. */
export function attemptIdFromTrigger(triggerEventId: string, purpose: string): string {
  return derivedEventId(`${purpose}:${triggerEventId}`, 0);
}

export function newAttemptId(): string {
  return randomUUID();
}

/**
 * The seed of the event that starts attempt `attemptId` of the session, and the seed that event
 * had before seeds named the session (`${attemptId}/start`, for compactions and branch summaries
 * alike).
 */
export function attemptStartSeeds(
  sessionId: string,
  attemptId: string,
  kind: AttemptKind,
): { readonly idSeed: string; readonly formerIdSeeds: readonly string[] } {
  const purpose = kind === 'compaction' ? 'compaction-start' : 'branch-summary-start';
  return { idSeed: sessionIdSeed(sessionId, purpose, attemptId), formerIdSeeds: [`${attemptId}/start`] };
}

/** The seed of the terminal event (and entry) that ends attempt `attemptId` of the session. */
export function attemptOutcomeSeed(sessionId: string, attemptId: string, kind: AttemptKind): string {
  return sessionIdSeed(
    sessionId,
    kind === 'compaction' ? 'compaction-outcome' : 'branch-summary-outcome',
    attemptId,
  );
}

/**
 * The correlation id of every event of attempt `attemptId` of the session (its start, its
 * entry, its outcome, however many appends they take): the id of the attempt's start event.
 */
export function attemptCorrelationId(sessionId: string, attemptId: string, kind: AttemptKind): string {
  return derivedEventId(attemptStartSeeds(sessionId, attemptId, kind).idSeed, 0);
}

/** The audit metadata of a write of the attempt: its correlation id (the causation id follows it). */
export function attemptMetadata(
  sessionId: string,
  attemptId: string,
  kind: AttemptKind,
): Readonly<Record<string, string>> {
  return { correlationId: attemptCorrelationId(sessionId, attemptId, kind) };
}
