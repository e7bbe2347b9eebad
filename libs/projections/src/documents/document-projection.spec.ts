import { sessionEventTypes } from '@strata/session';
import type { ProjectedEvent } from '../runner/projected-event';
import {
  DocumentProjection,
  UnstorableDocumentError,
  type DocumentStorage,
  type ProjectionDocument,
} from './document-projection';

interface Tally extends ProjectionDocument {
  readonly total: number;
  readonly nested: { readonly values: readonly number[] };
}

class MapStorage implements DocumentStorage<Tally> {
  readonly saved = new Map<string, Tally>();

  load(documentId: string): Promise<Tally | undefined> {
    return Promise.resolve(this.saved.get(documentId));
  }

  save(documents: ReadonlyMap<string, Tally>): Promise<void> {
    for (const [id, document] of documents) this.saved.set(id, document);
    return Promise.resolve();
  }

  clear(): Promise<void> {
    this.saved.clear();
    return Promise.resolve();
  }
}

function eventAt(position: bigint, sessionId = 's1'): ProjectedEvent {
  return {
    sessionId,
    streamId: `session-${sessionId}`,
    eventId: `e${position}`,
    revision: position,
    position,
    recordedAt: '2026-01-01T00:00:00.000Z',
    tenant: 'acme',
    event: { type: 'LeafMoved', data: { leafId: null, previousLeafId: null } },
  };
}

describe('a document projection', () => {
  describe('given an evolve that would make a number JSON cannot hold', () => {
    it('refuses the event, naming where, and keeps the document as it was', async () => {
      const storage = new MapStorage();
      let next = 1;
      const projection = new DocumentProjection<Tally>(
        {
          name: 'tally',
          eventTypes: sessionEventTypes,
          documentId: (event) => event.sessionId,
          evolve: (document, event) => ({
            total: (document?.total ?? 0) + next,
            nested: { values: [next * 2] },
            position: event.position,
          }),
        },
        storage,
      );
      await projection.apply(eventAt(1n));
      next = Number.POSITIVE_INFINITY;

      const refused = projection.apply(eventAt(2n));

      await expect(refused).rejects.toBeInstanceOf(UnstorableDocumentError);
      await expect(refused).rejects.toMatchObject({ documentId: 's1', path: 'total' });
      await projection.flush();
      expect(storage.saved.get('s1')).toMatchObject({ total: 1, position: 1n });
      next = Number.NaN;
      await expect(projection.apply(eventAt(3n, 's2'))).rejects.toMatchObject({ path: 'total' });
    });
  });
});
