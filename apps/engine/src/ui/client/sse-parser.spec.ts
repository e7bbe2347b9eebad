import { ServerSentEventParser } from './sse-parser';

describe('given a stream of server-sent events in arbitrary chunks', () => {
  it('dispatches an event at the blank line, however the text is split', () => {
    const text = 'retry: 1000\n: connected\n\nid: 7\nevent: session_compact\ndata: {"a":1}\n\n';
    for (let cut = 0; cut <= text.length; cut += 1) {
      const parser = new ServerSentEventParser();
      const first = parser.push(text.slice(0, cut));
      const second = parser.push(text.slice(cut));
      expect([...first.events, ...second.events]).toEqual([
        { id: '7', event: 'session_compact', data: '{"a":1}' },
      ]);
      expect([...first.comments, ...second.comments]).toEqual(['connected']);
    }
  });

  it('joins data lines, accepts CRLF and CR, and names untyped events message', () => {
    const parser = new ServerSentEventParser();
    const { events } = parser.push('data: one\r\ndata:two\r\rdata: three\n\n');
    expect(events).toEqual([
      { id: undefined, event: 'message', data: 'one\ntwo' },
      { id: undefined, event: 'message', data: 'three' },
    ]);
  });

  it('keeps the last id for later events and does not dispatch an event without data', () => {
    const parser = new ServerSentEventParser();
    const { events } = parser.push('id: 41\n\nevent: x\n\ndata: y\n\n');
    expect(events).toEqual([{ id: '41', event: 'message', data: 'y' }]);
  });
});
