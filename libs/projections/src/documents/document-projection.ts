// A projection of documents (STYLE.md habit 8): each event names one document, and a pure
// `evolve(document | null, event)` gives its next version. Every document records the position
// of the last event it reflects, so an event at or below it is skipped (idempotent under
// redelivery). Changes are kept in memory until `flush`, which writes them in one batch. A
// document JSON could not hold (a non-finite number) is refused before it is kept, so the event
// that made it sets its session aside instead of a stored document failing every later read.
import type { SessionEventType } from '@strata/session';
import type { Projection } from '../runner/projection';
import type { ProjectedEvent } from '../runner/projected-event';

export interface ProjectionDocument {
  /** The global position of the last event the document reflects. */
  readonly position: bigint;
}

/** Where a document projection keeps its documents. */
export interface DocumentStorage<Document extends ProjectionDocument> {
  load(documentId: string): Promise<Document | undefined>;
  /** Writes the documents atomically (all or none), replacing earlier versions. */
  save(documents: ReadonlyMap<string, Document>): Promise<void>;
  /** Removes every document. */
  clear(): Promise<void>;
  /** Removes every document of one session (its stream was erased). */
  removeSession?(sessionId: string): Promise<void>;
}

export interface DocumentProjectionDefinition<Document extends ProjectionDocument> {
  readonly name: string;
  readonly eventTypes: readonly SessionEventType[];
  /** The document an event belongs to. */
  documentId(event: ProjectedEvent): string;
  /** The session a document describes (an erasure removes them by session); the document id by default. */
  sessionOf?(document: Document): string;
  /**
   * The next version of the document (with `position` set to the event's), or null when the
   * event creates nothing (for instance an outcome whose attempt never started). Pure.
   */
  evolve(document: Document | null, event: ProjectedEvent): Document | null;
}

/** Where in `value` a number JSON cannot hold (Infinity, NaN) sits; undefined when none does. */
function nonFiniteNumberAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : path || '(root)';
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const found = nonFiniteNumberAt(child, path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Where in `next` a number JSON cannot hold sits, looking only at the fields that changed from
 * `current` (the unchanged ones were checked when they were kept, or read back from JSON).
 */
function changedNonFiniteNumberAt<Document extends ProjectionDocument>(
  current: Document | null,
  next: Document,
): string | undefined {
  if (current === null) return nonFiniteNumberAt(next, '');
  const before = current as unknown as Readonly<Record<string, unknown>>;
  for (const [key, value] of Object.entries(next)) {
    if (value === before[key]) continue;
    const found = nonFiniteNumberAt(value, key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A document that could not be stored and read back as it is. */
export class UnstorableDocumentError extends Error {
  override readonly name = 'UnstorableDocumentError';

  constructor(
    readonly projection: string,
    readonly documentId: string,
    readonly path: string,
  ) {
    super(`the ${projection} document ${documentId} would hold a number JSON cannot store at ${path}`);
  }
}

export class DocumentProjection<Document extends ProjectionDocument> implements Projection {
  readonly durability = 'durable' as const;
  readonly name: string;
  readonly eventTypes: readonly SessionEventType[];
  private readonly unsaved = new Map<string, Document>();

  constructor(
    private readonly definition: DocumentProjectionDefinition<Document>,
    protected readonly storage: DocumentStorage<Document>,
  ) {
    this.name = definition.name;
    this.eventTypes = definition.eventTypes;
  }

  async apply(event: ProjectedEvent): Promise<void> {
    const documentId = this.definition.documentId(event);
    const current = this.unsaved.get(documentId) ?? (await this.storage.load(documentId)) ?? null;
    if (current !== null && current.position >= event.position) return;
    const next = this.definition.evolve(current, event);
    if (next === null || next === current) return;
    const unstorable = changedNonFiniteNumberAt(current, next);
    if (unstorable !== undefined) throw new UnstorableDocumentError(this.name, documentId, unstorable);
    this.unsaved.set(documentId, next);
  }

  async flush(): Promise<void> {
    if (this.unsaved.size === 0) return;
    const batch = new Map(this.unsaved);
    await this.storage.save(batch);
    for (const [documentId, document] of batch) {
      if (this.unsaved.get(documentId) === document) this.unsaved.delete(documentId);
    }
  }

  async reset(): Promise<void> {
    this.unsaved.clear();
    await this.storage.clear();
  }

  /** The session was erased: its unsaved and stored documents go. */
  async erase(sessionId: string): Promise<void> {
    for (const [documentId, document] of this.unsaved) {
      const owner = this.definition.sessionOf?.(document) ?? documentId;
      if (owner === sessionId) this.unsaved.delete(documentId);
    }
    await this.storage.removeSession?.(sessionId);
  }
}
