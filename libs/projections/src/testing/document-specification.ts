// Given / When / Then for document projections (STYLE.md habits 5 and 8), in the manner of the
// decider specification: fold the given events with `evolve` from no document, apply the event
// of `when`, and compare the document. Also builds ProjectedEvents with readable defaults.
import type { SessionEvent } from '@strata/session';
import type { DocumentProjectionDefinition, ProjectionDocument } from '../documents/document-projection';
import type { ProjectedEvent } from '../runner/projected-event';

export interface ProjectedEventOptions {
  readonly sessionId?: string;
  readonly tenant?: string;
  readonly revision?: bigint;
  readonly position?: bigint;
  readonly recordedAt?: string;
  readonly actor?: string;
  readonly onBehalfOf?: string;
}

/** A projected event; revision and position default to the given sequence number. */
export function projected(
  event: SessionEvent,
  sequence: number,
  options: ProjectedEventOptions = {},
): ProjectedEvent {
  const sessionId = options.sessionId ?? 'session-1';
  return {
    sessionId,
    streamId: `session-${sessionId}`,
    eventId: `event-${sequence}`,
    revision: options.revision ?? BigInt(sequence),
    position: options.position ?? BigInt(sequence + 1),
    recordedAt: options.recordedAt ?? new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString(),
    tenant: options.tenant ?? 'acme',
    ...(options.actor !== undefined ? { actor: options.actor } : {}),
    ...(options.onBehalfOf !== undefined ? { onBehalfOf: options.onBehalfOf } : {}),
    event,
  };
}

export interface DocumentThen<Document> {
  then(expected: Document | null): void;
  /** The document after `when` satisfies the matcher (partial comparison). */
  thenMatches(expected: Partial<Record<keyof Document, unknown>>): void;
}

export const DocumentSpecification = {
  for<Document extends ProjectionDocument>(definition: DocumentProjectionDefinition<Document>) {
    return {
      given(history: readonly ProjectedEvent[] = []) {
        return {
          when(event: ProjectedEvent): DocumentThen<Document> {
            const before = history.reduce<Document | null>(
              (document, next) => definition.evolve(document, next),
              null,
            );
            const after = (): Document | null => definition.evolve(before, event);
            return {
              then: (expected) => expect(after()).toEqual(expected),
              thenMatches: (expected) => expect(after()).toMatchObject(expected),
            };
          },
        };
      },
    };
  },
};
