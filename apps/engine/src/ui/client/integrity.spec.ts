import { integrityOf } from './integrity';

const day = (iso: string) => iso.slice(0, 10);

describe('what the viewer says of a verification', () => {
  it('states a verified chain with its figures, and the head revision and anchors when given', () => {
    expect(integrityOf({ ok: true, events: 12, headHash: 'a'.repeat(64), brokenAt: null }, day)).toEqual({
      state: 'verified',
      short: '✓ verified',
      text: `✓ Integrity verified: 12 events, head ${'a'.repeat(16)}…`,
    });
    expect(
      integrityOf({ ok: true, events: 3, headRevision: '2', headHash: null, anchors: { checked: 1 } }, day)
        .text,
    ).toBe('✓ Integrity verified: 3 events, head revision 2, 1 anchor matched');
  });

  it('states where a chain broke, or the reason the engine gives', () => {
    expect(
      integrityOf(
        { ok: false, events: 4, brokenAt: { revision: '4', eventId: 'e5', reason: 'hash_mismatch' } },
        day,
      ),
    ).toMatchObject({
      state: 'broken',
      text: '✗ Hash chain broken at revision 4 (hash_mismatch, event e5) after 4 good events',
    });
    expect(
      integrityOf({ ok: false, events: 126, reason: 'stream shorter than its head revision 128' }, day).text,
    ).toBe('✗ Stream shorter than its head revision 128 after 126 good events');
  });

  it('states an erasure with its record', () => {
    const statement = integrityOf(
      {
        ok: true,
        erasure: { streamId: 'session-s', actor: 'ops', reason: 'request', erasedAt: '2026-05-01T00:00:00Z' },
      },
      day,
    );
    expect(statement).toEqual({
      state: 'erased',
      short: '⌫ erased',
      text: 'This session was erased at 2026-05-01 by ops: request',
    });
  });
});
