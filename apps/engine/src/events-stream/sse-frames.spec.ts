import { EventFrameCache } from './sse-frames';
import type { PublicEvent } from './public-events';

function publicEvent(eventId: string, position: string, text: string): PublicEvent {
  return {
    id: position,
    name: 'entry_appended',
    position,
    index: 0,
    sessionId: 's-1',
    revision: '3',
    eventId,
    recordedAt: '2026-12-06T08:00:00.000Z',
    data: { text },
  };
}

describe('the frames of the event streams', () => {
  it('frames an event as an SSE event whose data is its JSON on one line', () => {
    const cache = new EventFrameCache(1024);
    const event = publicEvent('e-1', '17', 'line one\nline two');
    const frame = cache.frameOf(event);
    const text = `${frame[0]}${frame[1].toString('utf8')}${frame[2]}`;
    expect(text).toBe(`id: 17\nevent: entry_appended\ndata: ${JSON.stringify(event)}\n\n`);
    expect(text.split('\n').filter((line) => line.startsWith('data: '))).toHaveLength(1);
  });

  it('makes the JSON of an event once for every stream that delivers it', () => {
    const cache = new EventFrameCache(1024 * 1024);
    const frames = Array.from({ length: 128 }, () =>
      cache.frameOf(publicEvent('e-1', '17', 'x'.repeat(4096))),
    );
    expect(cache.serialised).toBe(1);
    expect(new Set(frames.map((frame) => frame[1])).size).toBe(1);
  });

  it('does not take the frame of another event stored at a position used again', () => {
    const cache = new EventFrameCache(1024);
    cache.frameOf(publicEvent('erased-event', '17', 'before the erasure'));
    const frame = cache.frameOf(publicEvent('new-event', '17', 'after it'));
    expect(JSON.parse(frame[1].toString('utf8'))).toMatchObject({
      eventId: 'new-event',
      data: { text: 'after it' },
    });
  });

  it('keeps no more bytes than its bound, and still frames an event larger than it', () => {
    const cache = new EventFrameCache(10_000);
    const large = publicEvent('e-large', '20', 'y'.repeat(20_000));
    expect(cache.frameOf(large)[1].length).toBeGreaterThan(20_000);
    cache.frameOf(large);
    expect(cache.serialised).toBe(2);
    for (let index = 0; index < 10; index += 1)
      cache.frameOf(publicEvent(`e-${index}`, `${index}`, 'z'.repeat(2_000)));
    cache.frameOf(publicEvent('e-0', '0', 'z'.repeat(2_000)));
    expect(cache.serialised).toBe(13);
  });
});
