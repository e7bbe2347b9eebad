// A session's integrity as the viewer states it, from `GET /sessions/{id}/verify`: verified,
// broken (where and why), or erased (its record). Read defensively, so that fields the engine
// adds (the head revision it recorded, anchors) are shown when present. Pure.
import { describeErasure, erasureRecordOf } from './erasures.js';

export type IntegrityState = 'verified' | 'broken' | 'erased';

export interface IntegrityStatement {
  readonly state: IntegrityState;
  /** A short word for a list cell. */
  readonly short: string;
  /** The whole sentence. */
  readonly text: string;
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== ''
    ? value
    : typeof value === 'number'
      ? String(value)
      : undefined;
}

function count(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : '?';
}

/** What a verification answer says. */
export function integrityOf(answer: unknown, formatTime: (iso: string) => string): IntegrityStatement {
  const result = isRecord(answer) ? answer : {};
  const erasure = erasureRecordOf(result['erasure'] ?? result['erased']);
  if (erasure !== undefined)
    return {
      state: 'erased',
      short: '⌫ erased',
      text: `This session was ${describeErasure(erasure, formatTime)}`,
    };
  const anchors = isRecord(result['anchors']) ? result['anchors'] : undefined;
  const anchorText =
    anchors !== undefined && typeof anchors['checked'] === 'number'
      ? `, ${count(anchors['checked'])} anchor${anchors['checked'] === 1 ? '' : 's'} matched`
      : '';
  const headRevision = text(result['headRevision']);
  if (result['ok'] === true) {
    const head = text(result['headHash'])?.slice(0, 16);
    return {
      state: 'verified',
      short: '✓ verified',
      text:
        `✓ Integrity verified: ${count(result['events'])} events` +
        (headRevision !== undefined ? `, head revision ${headRevision}` : '') +
        (head !== undefined ? `, head ${head}…` : '') +
        anchorText,
    };
  }
  const brokenAt = isRecord(result['brokenAt']) ? result['brokenAt'] : undefined;
  const why =
    brokenAt !== undefined
      ? `hash chain broken at revision ${text(brokenAt['revision']) ?? '?'} (${text(brokenAt['reason']) ?? '?'}, event ${text(brokenAt['eventId']) ?? '?'})`
      : (text(result['reason']) ?? text(result['detail']) ?? 'the check failed');
  return {
    state: 'broken',
    short: '✗ broken',
    text: `✗ ${why.charAt(0).toUpperCase()}${why.slice(1)} after ${count(result['events'])} good events`,
  };
}
