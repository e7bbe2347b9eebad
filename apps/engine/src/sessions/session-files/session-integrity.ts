// How the verification endpoints show a stream's integrity: the chain, the findings against the
// store's records and the engine's anchors, and the erasure record, each with a message.
import { type ErasureRecord } from '@strata/event-store';
import {
  describeErasure,
  describeFinding,
  describeRefusedAnchor,
  streamHolds,
  type RefusedAnchors,
  type StreamIntegrity,
} from '@strata/integrity';

export function erasureView(record: ErasureRecord) {
  return {
    streamId: record.streamId,
    erasedAt: record.erasedAt,
    actor: record.actor,
    reason: record.reason,
    eventCount: record.eventCount,
    headHash: record.headHash ?? null,
    headRevision: record.headRevision ?? null,
    message: describeErasure(record),
  };
}

export function refusedAnchorsView(refused: RefusedAnchors) {
  return {
    refusedAnchors: refused.named.map((item) => ({
      origin: item.origin,
      reason: item.reason,
      message: describeRefusedAnchor(item),
    })),
    refusedAnchorCount: refused.total,
  };
}

export function integrityView(sessionId: string, result: StreamIntegrity, refused: RefusedAnchors) {
  const broken = result.findings.find((finding) => finding.kind === 'chain_broken');
  return {
    sessionId,
    ok: streamHolds(result) && refused.total === 0,
    events: result.events,
    headHash: broken === undefined ? result.headHash : null,
    headRevision: broken === undefined ? (result.headRevision?.toString() ?? null) : null,
    brokenAt:
      broken === undefined ? null : { ...broken.brokenAt, revision: broken.brokenAt.revision.toString() },
    anchorsMatched: result.anchorsMatched,
    anchorsAnsweredByErasure: result.anchorsAnsweredByErasure,
    erasure: result.erasure !== undefined ? erasureView(result.erasure) : null,
    findings: result.findings.map((finding) => ({ kind: finding.kind, message: describeFinding(finding) })),
    ...refusedAnchorsView(refused),
  };
}
