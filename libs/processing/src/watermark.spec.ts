import { Watermark } from './watermark';

describe('a watermark', () => {
  describe('given nothing was given to the processor yet', () => {
    it('stands at its start position, and moves with events passed over', () => {
      const watermark = new Watermark(4n);
      expect(watermark.position).toBe(4n);
      watermark.pass(7n);
      expect(watermark.position).toBe(7n);
      watermark.pass(6n);
      expect(watermark.position).toBe(7n);
    });
  });

  describe('given events handled out of order', () => {
    it('stands before the first event that is not finished', () => {
      const watermark = new Watermark(null);
      const first = watermark.open(1n);
      watermark.pass(2n);
      const third = watermark.open(3n);
      const fourth = watermark.open(4n);
      watermark.finish(fourth);
      expect(watermark.position).toBeNull();
      watermark.finish(first);
      expect(watermark.position).toBe(2n);
      expect(watermark.outstanding).toBe(1);
      watermark.finish(third);
      expect(watermark.position).toBe(4n);
      expect(watermark.outstanding).toBe(0);
    });

    it('keeps its place across many finished events (the queue is compacted)', () => {
      const watermark = new Watermark(0n);
      const blocker = watermark.open(1n);
      const rest = Array.from({ length: 5_000 }, (_unused, index) => watermark.open(BigInt(index + 2)));
      for (const ticket of rest) watermark.finish(ticket);
      expect(watermark.position).toBe(0n);
      watermark.finish(blocker);
      expect(watermark.position).toBe(5_001n);
      expect(watermark.lastSeen).toBe(5_001n);
    });
  });

  it('refuses an event at or before the last one given (positions only grow)', () => {
    const watermark = new Watermark(null);
    watermark.open(3n);
    expect(() => watermark.open(3n)).toThrow(RangeError);
  });
});
