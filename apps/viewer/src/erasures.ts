// Erasure records as the viewer shows them: read defensively from `GET /erasures` and from the
// 410 problem of an erased session (the record may sit in the problem itself or under `erasure`
// or `record`), and said in one line. Pure.

export interface ErasureRecord {
  readonly sessionId: string;
  readonly actor: string;
  readonly reason: string;
  readonly erasedAt: string;
  readonly eventCount: number | null;
  readonly headHash: string | null;
  readonly headRevision: string | null;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

const SESSION_STREAM_PREFIX = 'session-';

/** An erasure record from what the engine answered; undefined when it holds none. */
export function erasureRecordOf(value: unknown): ErasureRecord | undefined {
  if (!isRecord(value)) return undefined;
  for (const key of ['erasure', 'record']) {
    const inner = erasureRecordOf(value[key]);
    if (inner !== undefined) return inner;
  }
  const streamId = text(value['streamId']);
  const sessionId =
    text(value['sessionId']) ??
    (streamId?.startsWith(SESSION_STREAM_PREFIX) ? streamId.slice(SESSION_STREAM_PREFIX.length) : streamId);
  const erasedAt = text(value['erasedAt']);
  if (sessionId === undefined || erasedAt === undefined) return undefined;
  const count = value['eventCount'];
  const revision = value['headRevision'];
  return {
    sessionId,
    actor: text(value['actor']) ?? '—',
    // A problem's own `reason` is its code (`session_erased`); the record's reason is the why.
    reason: text(value['erasureReason']) ?? text(value['reason']) ?? '—',
    erasedAt,
    eventCount: typeof count === 'number' ? count : null,
    headHash: text(value['headHash']) ?? null,
    headRevision:
      typeof revision === 'string' ? revision : typeof revision === 'number' ? String(revision) : null,
  };
}

/** The records of a `GET /erasures` answer (a list, or `{items}` / `{erasures}`), newest first. */
export function erasureRecordsOf(answer: unknown): ErasureRecord[] {
  const list = Array.isArray(answer)
    ? answer
    : isRecord(answer)
      ? Array.isArray(answer['items'])
        ? answer['items']
        : answer['erasures']
      : undefined;
  if (!Array.isArray(list)) return [];
  return list
    .map((item) => erasureRecordOf(item))
    .filter((record): record is ErasureRecord => record !== undefined)
    .sort((first, second) =>
      first.erasedAt < second.erasedAt ? 1 : first.erasedAt > second.erasedAt ? -1 : 0,
    );
}

/** `erased at 2026-… by alice: reason (128 events, head revision 127, hash 332e6b98…)`. */
export function describeErasure(record: ErasureRecord, formatTime: (iso: string) => string): string {
  const figures = [
    record.eventCount !== null ? `${record.eventCount} events` : undefined,
    record.headRevision !== null ? `head revision ${record.headRevision}` : undefined,
    record.headHash !== null ? `hash ${record.headHash.slice(0, 16)}…` : undefined,
  ].filter((part) => part !== undefined);
  return `erased at ${formatTime(record.erasedAt)} by ${record.actor}: ${record.reason}${figures.length > 0 ? ` (${figures.join(', ')})` : ''}`;
}
