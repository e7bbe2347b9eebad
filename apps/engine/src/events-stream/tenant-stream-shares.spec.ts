import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { TenantStreamShare, type SharedStream } from './tenant-stream-shares';

/** A socket's side of a stream: what it holds unsent and whether it asked to drain. */
class FakeResponse extends EventEmitter {
  static lengthReads = 0;
  writableNeedDrain = false;
  private unsent = 0;

  get writableLength(): number {
    FakeResponse.lengthReads += 1;
    return this.unsent;
  }

  set writableLength(bytes: number) {
    this.unsent = bytes;
  }
}

function streamOf(response: FakeResponse): SharedStream & { closed: boolean } {
  return { response: response as unknown as ServerResponse, closed: false };
}

async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn += 1) await Promise.resolve();
}

describe('a tenant share with every stream waiting at the gate', () => {
  const limits = {
    maxStreams: 256,
    maxStreamsPerTenant: 128,
    readsPerTenant: 2,
    unsentBytesPerTenant: 1024,
  };

  it('lets as many waiting streams read as there are free reads when one read ends', async () => {
    const share = new TenantStreamShare(limits);
    const responses = Array.from({ length: 128 }, () => new FakeResponse());
    const streams = responses.map(streamOf);
    for (const stream of streams) share.add(stream);
    const gates = streams.map((stream) => share.gateFor(stream));
    const entered: number[] = [];
    gates.slice(0, 2).forEach((gate, index) => void gate.enter().then(() => entered.push(index)));
    await settle();
    expect(entered).toEqual([0, 1]);

    gates.slice(2).forEach((gate, index) => void gate.enter().then(() => entered.push(index + 2)));
    await settle();
    expect(entered).toEqual([0, 1]);

    const readsBefore = FakeResponse.lengthReads;
    gates[0]?.leave();
    await settle();
    expect(entered).toEqual([0, 1, 2]);
    // the change itself, and the one stream it woke looking once more: not every waiting stream
    // summing every socket again
    expect(FakeResponse.lengthReads - readsBefore).toBeLessThanOrEqual(3 * streams.length);
  });

  it('looks at every socket once per change while the tenant is over its bound of unsent bytes, not once per waiting stream', async () => {
    const share = new TenantStreamShare(limits);
    const responses = Array.from({ length: 128 }, () => new FakeResponse());
    const streams = responses.map(streamOf);
    for (const stream of streams) share.add(stream);
    responses[0]!.writableLength = 4096;
    const entered: number[] = [];
    streams.forEach(
      (stream, index) =>
        void share
          .gateFor(stream)
          .enter()
          .then(() => entered.push(index)),
    );
    await settle();

    const readsBefore = FakeResponse.lengthReads;
    for (const response of responses.slice(1, 11)) response.emit('drain');
    await settle();
    expect(entered).toEqual([]);
    expect(FakeResponse.lengthReads - readsBefore).toBeLessThanOrEqual(10 * 2 * streams.length);
  });

  it('keeps every stream waiting while the tenant holds its bound of unsent bytes, and lets one read once a socket drained', async () => {
    const share = new TenantStreamShare(limits);
    const responses = Array.from({ length: 4 }, () => new FakeResponse());
    const streams = responses.map(streamOf);
    for (const stream of streams) share.add(stream);
    responses[0]!.writableLength = 2048;
    responses[0]!.writableNeedDrain = true;
    const entered: number[] = [];
    streams.forEach(
      (stream, index) =>
        void share
          .gateFor(stream)
          .enter()
          .then(() => entered.push(index)),
    );
    await settle();
    expect(entered).toEqual([]);

    responses[0]!.writableLength = 0;
    responses[0]!.writableNeedDrain = false;
    responses[0]!.emit('drain');
    await settle();
    expect(entered).toEqual([0, 1]);
  });

  it('wakes a closed stream so that it leaves, whatever the reads in progress', async () => {
    const share = new TenantStreamShare({ ...limits, readsPerTenant: 1 });
    const responses = [new FakeResponse(), new FakeResponse()];
    const [reader, waiting] = responses.map(streamOf);
    share.add(reader!);
    share.add(waiting!);
    await share.gateFor(reader!).enter();
    let left = false;
    void share
      .gateFor(waiting!)
      .enter()
      .then(() => (left = true));
    await settle();
    expect(left).toBe(false);

    waiting!.closed = true;
    responses[1]!.emit('close');
    await settle();
    expect(left).toBe(true);
  });
});
