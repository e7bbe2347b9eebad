import { FairWriteQueue, type WriteBounds, type WriteEntry } from './fair-write-queue';

const MiB = 1024 * 1024;
const KiB = 1024;

/** A queue and a record of its admissions, in order, by the names the test gives its writes. */
function given(bounds: Partial<WriteBounds>) {
  const queue = new FairWriteQueue({
    bytes: 16 * MiB,
    bytesPerTenant: 16 * MiB,
    writes: 100,
    writesPerTenant: 100,
    queuedPerTenant: 100,
    ...bounds,
  });
  const admitted: string[] = [];
  const releases = new Map<string, () => void>();
  const entries = new Map<string, WriteEntry>();
  return {
    queue,
    admitted,
    /** `name` (its tenant is the name's first letter) asks to write `bytes`. */
    write(name: string, bytes: number): WriteEntry {
      const entry = queue.enter(name.slice(0, 1), bytes, (release) => {
        admitted.push(name);
        releases.set(name, release);
      });
      if (entry.outcome === 'admitted') {
        admitted.push(name);
        releases.set(name, entry.release);
      }
      entries.set(name, entry);
      return entry;
    },
    end(name: string): void {
      const release = releases.get(name);
      if (release === undefined) throw new Error(`${name} was not admitted`);
      release();
    },
    withdraw(name: string) {
      const entry = entries.get(name);
      if (entry?.outcome !== 'queued') throw new Error(`${name} did not wait`);
      return entry.withdraw();
    },
  };
}

describe('a queue with room', () => {
  it("admits a write at once while its tenant's share and the engine's budget have room", () => {
    const { write, queue } = given({ bytesPerTenant: 8 * MiB });
    expect(write('a1', 4 * MiB).outcome).toBe('admitted');
    expect(write('b1', 8 * MiB).outcome).toBe('admitted');
    expect(queue.usage()).toEqual({ bytes: 12 * MiB, writes: 2, queued: 0 });
    expect(queue.usage('a')).toEqual({ bytes: 4 * MiB, writes: 1, queued: 0 });
  });

  it('counts a body of no bytes as a write all the same', () => {
    const { write, queue } = given({ writes: 1, writesPerTenant: 1 });
    expect(write('a1', 0).outcome).toBe('admitted');
    expect(write('a2', 0).outcome).toBe('queued');
    expect(queue.usage()).toEqual({ bytes: 0, writes: 1, queued: 1 });
  });
});

describe('a tenant at its share', () => {
  it('makes its next write wait, and admits it when one of its writes ends', () => {
    const { write, end, admitted } = given({ bytesPerTenant: 8 * MiB });
    write('a1', 8 * MiB);
    expect(write('a2', 1 * KiB).outcome).toBe('queued');
    end('a1');
    expect(admitted).toEqual(['a1', 'a2']);
  });

  it('bounds its writes in progress by number as well as by bytes', () => {
    const { write, end, admitted } = given({ writesPerTenant: 2 });
    write('a1', KiB);
    write('a2', KiB);
    expect(write('a3', KiB).outcome).toBe('queued');
    end('a2');
    expect(admitted).toEqual(['a1', 'a2', 'a3']);
  });

  it("lets another tenant's write in at once", () => {
    const { write } = given({ bytesPerTenant: 8 * MiB });
    write('a1', 8 * MiB);
    write('a2', 8 * MiB);
    expect(write('b1', 8 * MiB).outcome).toBe('admitted');
  });

  it('counts a write declaring more than the share as the whole share, admitted alone', () => {
    const { write, end, admitted, queue } = given({ bytesPerTenant: 8 * MiB });
    write('a1', KiB);
    expect(write('a2', 64 * MiB).outcome).toBe('queued');
    end('a1');
    expect(admitted).toEqual(['a1', 'a2']);
    expect(queue.usage('a').bytes).toBe(8 * MiB);
  });

  it('keeps its writes in order: a later small one waits behind its own large one', () => {
    const { write, end, admitted } = given({ bytesPerTenant: 8 * MiB });
    write('a1', 4 * MiB);
    write('a2', 8 * MiB);
    expect(write('a3', KiB).outcome).toBe('queued');
    end('a1');
    expect(admitted).toEqual(['a1', 'a2']);
  });
});

describe('an engine at its budget', () => {
  it('makes every tenant wait, by bytes', () => {
    const { write, end, admitted } = given({ bytes: 8 * MiB, bytesPerTenant: 8 * MiB });
    write('a1', 8 * MiB);
    expect(write('b1', KiB).outcome).toBe('queued');
    end('a1');
    expect(admitted).toEqual(['a1', 'b1']);
  });

  it('makes every tenant wait, by number of writes', () => {
    const { write, end, admitted } = given({ writes: 2, writesPerTenant: 2 });
    write('a1', KiB);
    write('a2', KiB);
    expect(write('b1', KiB).outcome).toBe('queued');
    end('a1');
    expect(admitted).toEqual(['a1', 'a2', 'b1']);
  });
});

describe('tenants waiting together', () => {
  it("admits another tenant's small write before a tenant's own large ones still waiting", () => {
    const { write, end, admitted } = given({ bytes: 16 * MiB, bytesPerTenant: 16 * MiB });
    for (const name of ['a1', 'a2', 'a3', 'a4']) write(name, 8 * MiB);
    expect(write('b1', KiB).outcome).toBe('queued');
    end('a1');
    expect(admitted).toEqual(['a1', 'a2', 'b1']);
    end('b1');
    expect(admitted).toEqual(['a1', 'a2', 'b1', 'a3']);
  });

  it('shares the budget by bytes: four writes of 1 MiB for each write of 4 MiB', () => {
    const { write, end, admitted } = given({ writes: 1, writesPerTenant: 1 });
    for (let index = 1; index <= 3; index += 1) write(`a${index}`, 4 * MiB);
    for (let index = 1; index <= 10; index += 1) write(`b${index}`, MiB);
    while (admitted.length < 13) end(admitted[admitted.length - 1]!);
    expect(admitted.map((name) => name.slice(0, 1)).join('')).toBe('abbbbabbbbabb');
  });

  it('does not let later small writes pass a large one that is first in the fair order', () => {
    const { write, end, admitted } = given({ bytes: 8 * MiB, bytesPerTenant: 8 * MiB });
    write('b1', MiB);
    expect(write('a1', 8 * MiB).outcome).toBe('queued');
    expect(write('b2', KiB).outcome).toBe('queued');
    expect(write('b3', KiB).outcome).toBe('queued');
    end('b1');
    expect(admitted).toEqual(['b1', 'a1']);
    end('a1');
    expect(admitted).toEqual(['b1', 'a1', 'b2', 'b3']);
  });

  it('passes over a tenant at its share to admit the next tenant whose share has room', () => {
    const { write, end, admitted } = given({ bytes: 16 * MiB, bytesPerTenant: 8 * MiB });
    write('a1', 8 * MiB);
    write('b1', 8 * MiB);
    write('a2', KiB);
    write('b2', KiB);
    end('b1');
    expect(admitted).toEqual(['a1', 'b1', 'b2']);
  });

  it('starts the order afresh once the engine is idle', () => {
    const { write, end, admitted } = given({ writes: 1, writesPerTenant: 1 });
    write('a1', 8 * MiB);
    write('a2', 8 * MiB);
    end('a1');
    end('a2');
    write('c1', KiB);
    write('a3', KiB);
    write('b1', KiB);
    end('c1');
    expect(admitted).toEqual(['a1', 'a2', 'c1', 'a3']);
  });
});

describe("a tenant's queue", () => {
  it('refuses a write past its bound, naming the share when the share holds it', () => {
    const { write } = given({ bytesPerTenant: 8 * MiB, queuedPerTenant: 1 });
    write('a1', 8 * MiB);
    expect(write('a2', KiB).outcome).toBe('queued');
    expect(write('a3', KiB)).toEqual({ outcome: 'refused', refusal: 'tenant_share' });
  });

  it("refuses a write past its bound, naming the engine's budget when the budget holds it", () => {
    const { write } = given({ bytes: 8 * MiB, bytesPerTenant: 8 * MiB, queuedPerTenant: 1 });
    write('b1', 8 * MiB);
    expect(write('a1', KiB).outcome).toBe('queued');
    expect(write('a2', KiB)).toEqual({ outcome: 'refused', refusal: 'engine_budget' });
  });

  it('of no places refuses at once what cannot be admitted at once', () => {
    const { write } = given({ bytes: 8 * MiB, bytesPerTenant: 5 * MiB, queuedPerTenant: 0 });
    write('a1', 5 * MiB);
    expect(write('a2', KiB)).toEqual({ outcome: 'refused', refusal: 'tenant_share' });
    write('b1', 2 * MiB);
    expect(write('b2', 2 * MiB)).toEqual({ outcome: 'refused', refusal: 'engine_budget' });
    expect(write('b3', KiB).outcome).toBe('admitted');
  });

  it('does not count a refused write against its tenant in the fair order', () => {
    const { write, end, admitted } = given({ writes: 2, writesPerTenant: 1, queuedPerTenant: 1 });
    write('d1', KiB);
    write('d2', KiB);
    write('c1', KiB);
    write('a1', KiB);
    expect(write('a2', 64 * MiB).outcome).toBe('refused');
    write('b1', KiB);
    end('c1');
    write('a3', KiB);
    end('a1');
    write('b2', KiB);
    end('b1');
    expect(admitted).toEqual(['d1', 'c1', 'a1', 'b1', 'a3']);
  });
});

describe('a waiting write', () => {
  it('leaves the queue when withdrawn, saying what held it, and lets the next one in', () => {
    const { write, end, withdraw, admitted, queue } = given({ bytes: 8 * MiB, bytesPerTenant: 8 * MiB });
    write('b1', MiB);
    write('a1', 8 * MiB);
    write('b2', KiB);
    expect(withdraw('a1')).toBe('engine_budget');
    expect(admitted).toEqual(['b1', 'b2']);
    end('b1');
    expect(queue.usage()).toEqual({ bytes: KiB, writes: 1, queued: 0 });
  });

  it('withdrawn once admitted or twice changes nothing', () => {
    const { write, end, withdraw, queue } = given({ bytesPerTenant: 8 * MiB });
    write('a1', 8 * MiB);
    write('a2', MiB);
    write('a3', MiB);
    expect(withdraw('a3')).toBe('tenant_share');
    expect(withdraw('a3')).toBeUndefined();
    end('a1');
    expect(withdraw('a2')).toBeUndefined();
    expect(queue.usage()).toEqual({ bytes: MiB, writes: 1, queued: 0 });
  });
});

describe('a release', () => {
  it('given twice frees its write once', () => {
    const { write, end, queue } = given({});
    write('a1', MiB);
    write('a2', MiB);
    end('a1');
    end('a1');
    expect(queue.usage()).toEqual({ bytes: MiB, writes: 1, queued: 0 });
  });
});

describe('bounds', () => {
  const valid: WriteBounds = {
    bytes: 8,
    bytesPerTenant: 8,
    writes: 2,
    writesPerTenant: 2,
    queuedPerTenant: 0,
  };

  it.each<[string, Partial<WriteBounds>]>([
    ['no bytes', { bytes: 0 }],
    ['a share of no writes', { writesPerTenant: 0 }],
    ['a fractional budget', { bytes: 1.5 }],
    ['a negative queue', { queuedPerTenant: -1 }],
    ['a share larger than the budget', { bytesPerTenant: 16 }],
    ['more writes per tenant than in all', { writesPerTenant: 3 }],
  ])('refuses %s', (_what, change) => {
    expect(() => new FairWriteQueue({ ...valid, ...change })).toThrow(RangeError);
  });
});
