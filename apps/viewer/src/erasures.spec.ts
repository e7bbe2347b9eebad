import { describeErasure, erasureRecordOf, erasureRecordsOf } from './erasures';

const record = {
  streamId: 'session-abc',
  actor: 'alice',
  reason: 'data subject request',
  tenant: 'acme',
  erasedAt: '2026-12-01T10:00:00.000Z',
  eventCount: 128,
  headHash: '332e6b98aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  headRevision: '127',
};

describe('erasure records as the viewer reads them', () => {
  it('reads a record of GET /erasures, the session id from its stream', () => {
    expect(erasureRecordOf(record)).toEqual({
      sessionId: 'abc',
      actor: 'alice',
      reason: 'data subject request',
      erasedAt: '2026-12-01T10:00:00.000Z',
      eventCount: 128,
      headHash: record.headHash,
      headRevision: '127',
    });
  });

  it('finds the record inside a 410 problem, and none in other problems', () => {
    const problem = { status: 410, code: 'gone', reason: 'session_erased', erasure: record };
    expect(erasureRecordOf(problem)?.reason).toBe('data subject request');
    expect(erasureRecordOf({ status: 404, code: 'not_found' })).toBeUndefined();
  });

  it('reads a list in any of its shapes, newest first, skipping what is not a record', () => {
    const older = { ...record, streamId: 'session-old', erasedAt: '2026-01-01T00:00:00.000Z' };
    expect(erasureRecordsOf([older, record, 'x']).map((item) => item.sessionId)).toEqual(['abc', 'old']);
    expect(erasureRecordsOf({ items: [record] })).toHaveLength(1);
    expect(erasureRecordsOf({ erasures: [record] })).toHaveLength(1);
    expect(erasureRecordsOf(null)).toEqual([]);
  });

  it('says who erased what, when and why, in one line', () => {
    expect(describeErasure(erasureRecordOf(record)!, (iso) => iso.slice(0, 10))).toBe(
      'erased at 2026-12-01 by alice: data subject request (128 events, head revision 127, hash 332e6b98aaaaaaaa…)',
    );
  });
});
