import { integrityOf } from './integrity';

const day = (iso: string) => iso.slice(0, 10);

/** A `SessionVerification` answer as the engine gives it, with `fields` changed. */
function answer(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    sessionId: 's',
    ok: true,
    events: 12,
    headHash: 'a'.repeat(64),
    headRevision: '11',
    brokenAt: null,
    anchorsMatched: 0,
    anchorsAnsweredByErasure: 0,
    erasure: null,
    findings: [],
    refusedAnchors: [],
    refusedAnchorCount: 0,
    ...fields,
  };
}

describe('what the viewer says of a verification', () => {
  it('states a verified chain with its figures and the anchors it matched', () => {
    expect(integrityOf(answer({}), day)).toEqual({
      state: 'verified',
      short: '✓ verified',
      text: `✓ Integrity verified: 12 events, head revision 11, head ${'a'.repeat(16)}…`,
    });
    expect(integrityOf(answer({ events: 3, headRevision: '2', anchorsMatched: 1 }), day).text).toBe(
      `✓ Integrity verified: 3 events, head revision 2, head ${'a'.repeat(16)}…, 1 anchor matched`,
    );
  });

  it('states where a chain broke', () => {
    const broken = answer({
      ok: false,
      events: 4,
      headHash: null,
      headRevision: null,
      brokenAt: { revision: '4', eventId: 'e5', reason: 'hash_mismatch' },
      findings: [{ kind: 'chain_broken', message: 'session-s: the hash chain breaks at revision 4' }],
    });
    expect(integrityOf(broken, day)).toEqual({
      state: 'broken',
      short: '✗ broken',
      text: '✗ Hash chain broken at revision 4 (hash_mismatch, event e5) (4 events verified)',
    });
  });

  it('states the findings of a chain that holds but is short, and refused anchors', () => {
    const cut = answer({
      ok: false,
      events: 126,
      findings: [
        { kind: 'tail_missing', message: 'session-s: the store records revision 127 as the last' },
        { kind: 'anchor_not_reached', message: 'session-s: anchor log #3 is not matched' },
      ],
      refusedAnchors: [
        { origin: 'anchor log #4', reason: 'bad_signature', message: 'anchor log #4 refused' },
      ],
      refusedAnchorCount: 2,
    });
    expect(integrityOf(cut, day)).toMatchObject({
      state: 'broken',
      text:
        '✗ session-s: the store records revision 127 as the last; session-s: anchor log #3 is not ' +
        'matched; 2 anchors refused: anchor log #4 refused (126 events verified)',
    });
    expect(integrityOf(answer({ ok: false, findings: [] }), day).text).toBe(
      '✗ The check failed (12 events verified)',
    );
  });

  it('states an erasure with its record, which names no session of its own', () => {
    const erased = answer({
      sessionId: 'gone',
      events: 0,
      headHash: null,
      headRevision: null,
      anchorsAnsweredByErasure: 1,
      erasure: {
        erasedAt: '2026-05-01T00:00:00Z',
        actor: 'ops',
        reason: 'request',
        eventCount: 9,
        message: 'session-gone: erased at 2026-05-01T00:00:00Z by ops: request',
      },
    });
    expect(integrityOf(erased, day)).toEqual({
      state: 'erased',
      short: '⌫ erased',
      text: 'This session was erased at 2026-05-01 by ops: request (9 events)',
    });
  });
});
