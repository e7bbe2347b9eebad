// A session's integrity as the viewer states it, from `GET /sessions/{id}/verify`
// (`SessionVerification`): verified (events, head, anchors matched), broken (where the chain
// broke, else the engine's findings: a cut tail, an anchor the stream does not reach or match,
// refused anchors), or erased (its record). Read defensively: a field missing is left out. Pure.
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

/** The messages of a list of findings or refused anchors, those of kind `skip` left out. */
function messagesOf(value: unknown, skip?: string): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .map((item) =>
      isRecord(item) && (skip === undefined || item['kind'] !== skip) ? text(item['message']) : undefined,
    )
    .filter((message): message is string => message !== undefined);
}

/** What a verification answer says. */
export function integrityOf(answer: unknown, formatTime: (iso: string) => string): IntegrityStatement {
  const result = isRecord(answer) ? answer : {};
  const erased = result['erasure'];
  const erasure = erasureRecordOf(
    isRecord(erased) && erased['sessionId'] === undefined && erased['streamId'] === undefined
      ? { ...erased, sessionId: result['sessionId'] }
      : erased,
  );
  if (erasure !== undefined)
    return {
      state: 'erased',
      short: '⌫ erased',
      text: `This session was ${describeErasure(erasure, formatTime)}`,
    };
  const matched = result['anchorsMatched'];
  const anchorText =
    typeof matched === 'number' && matched > 0
      ? `, ${count(matched)} anchor${matched === 1 ? '' : 's'} matched`
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
  const refused = result['refusedAnchorCount'];
  const reasons =
    brokenAt !== undefined
      ? [
          `Hash chain broken at revision ${text(brokenAt['revision']) ?? '?'} (${text(brokenAt['reason']) ?? '?'}, event ${text(brokenAt['eventId']) ?? '?'})`,
        ]
      : messagesOf(result['findings'], 'chain_broken');
  if (brokenAt === undefined && typeof refused === 'number' && refused > 0)
    reasons.push(
      `${count(refused)} anchor${refused === 1 ? '' : 's'} refused: ${messagesOf(result['refusedAnchors'])[0] ?? '?'}`,
    );
  const why = reasons.length > 0 ? reasons.join('; ') : 'The check failed';
  return {
    state: 'broken',
    short: '✗ broken',
    text: `✗ ${why} (${count(result['events'])} events verified)`,
  };
}
