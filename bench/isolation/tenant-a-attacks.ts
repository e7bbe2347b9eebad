// Tenant A's three attacks on the shared engine (issue 22's list), each run for a fixed window
// while tenant B's workload is measured: (a) importing a session file of ~60 MB made of long runs
// of one character, one import after the other; (b) 16 senders at once, each appending entries
// just under the JSON body limit to a session of its own, one after the other; (c) holding 128
// event streams from the start of the log (or A's share, if the engine allows fewer), half of
// them read slowly (one chunk a second) and half not at all. Bodies are built once, so the client
// sends buffers and spends next to no CPU of its own. No attack starts a request after its
// window; each resolves once its last request has answered.
import * as http from 'node:http';
import { session } from '@strata/testing';
import { jsonBody, type RequestBody, type TenantHttp } from './tenant-http';

export type AttackName = 'import' | 'appends' | 'streams';

export interface AttackReport {
  readonly name: AttackName;
  /** A's requests of the attack, by status (`error` for a socket error). */
  readonly statuses: Readonly<Record<string, number>>;
  /** Milliseconds each of A's requests took to answer (for streams: to open). */
  readonly requestMs: readonly number[];
  readonly bytesSent: number;
  /** Facts particular to the attack (streams held, what the stream over the share answered…). */
  readonly facts: Readonly<Record<string, number | string>>;
}

export interface Attack {
  readonly name: AttackName;
  readonly label: string;
  /** Unmeasured set-up before the window (A's session for the appends). */
  prepare(): Promise<void>;
  run(deadline: number): Promise<AttackReport>;
}

class StatusCounter {
  readonly counts: Record<string, number> = {};
  readonly requestMs: number[] = [];
  bytesSent = 0;

  async timed(body: RequestBody | undefined, send: () => Promise<{ status: number }>): Promise<number> {
    const started = performance.now();
    let status: number | 'error';
    try {
      status = (await send()).status;
    } catch {
      status = 'error';
    }
    this.requestMs.push(performance.now() - started);
    this.counts[String(status)] = (this.counts[String(status)] ?? 0) + 1;
    this.bytesSent += body?.chunks.reduce((sum, chunk) => sum + chunk.length, 0) ?? 0;
    return status === 'error' ? -1 : status;
  }
}

// (a) ----------------------------------------------------------------------------------------

export interface ImportPlan {
  /** User and assistant messages, alternating. */
  readonly messages: number;
  /** Characters of each message's run of one character. */
  readonly runCharacters: number;
}

/** The entry lines of the session file (every import sends them under a fresh header). */
export function importEntryLines(plan: ImportPlan): Buffer {
  const builder = session({ sessionId: 'template', cwd: '/work/tenant-a' });
  for (let index = 0; index < plan.messages; index += 1) {
    const run = 'x'.repeat(plan.runCharacters);
    if (index % 2 === 0) builder.user(run);
    else builder.assistant(run);
  }
  return Buffer.from(builder.entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
}

function importHeaderLine(sessionId: string): Buffer {
  const header = { ...session({ sessionId, cwd: '/work/tenant-a' }).header };
  return Buffer.from(`${JSON.stringify(header)}\n`);
}

export function importAttack(client: TenantHttp, entryLines: Buffer): Attack {
  return {
    name: 'import',
    label: `A imports a ${(entryLines.length / 1e6).toFixed(0)} MB session of one-character runs, one after another`,
    async prepare() {},
    async run(deadline) {
      const counter = new StatusCounter();
      for (let imported = 0; performance.now() < deadline; imported += 1) {
        const body: RequestBody = {
          chunks: [importHeaderLine(`a-import-${imported}`), entryLines],
          contentType: 'application/x-ndjson',
        };
        await counter.timed(body, () => client.request('POST', '/sessions/import', body));
      }
      return {
        name: 'import',
        statuses: counter.counts,
        requestMs: counter.requestMs,
        bytesSent: counter.bytesSent,
        facts: { fileBytes: counter.bytesSent / Math.max(1, counter.requestMs.length) },
      };
    },
  };
}

// (b) ----------------------------------------------------------------------------------------

/** Room left under the body limit for the entry's own fields and the ids that change. */
const BODY_MARGIN_BYTES = 1_024;
/** Issue 22's attack (b): this many large appends in flight at once. */
export const CONCURRENT_LARGE_APPENDS = 16;

export function largeAppendsAttack(
  client: TenantHttp,
  bodyLimitBytes: number,
  senders: number = CONCURRENT_LARGE_APPENDS,
): Attack {
  const sessionId = (sender: number): string => `a-large-entries-${sender}`;
  const tail = Buffer.from('"}}]}');
  const head = (id: string, parentId: string | null, now: number): Buffer =>
    Buffer.from(
      `{"entries":[{"type":"message","id":${JSON.stringify(id)},"parentId":${JSON.stringify(parentId)},` +
        `"timestamp":"${new Date(now).toISOString()}","message":{"role":"user","timestamp":${now},"content":"`,
    );
  const runBytes =
    bodyLimitBytes - BODY_MARGIN_BYTES - head('a-large-00-000000', 'a-large-00-000000', 0).length;
  const run = Buffer.alloc(runBytes, 'x');
  return {
    name: 'appends',
    label: `${senders} senders at once append entries of ${(bodyLimitBytes / 2 ** 20).toFixed(0)} MiB less 1 kB, each to its own session`,
    async prepare() {
      for (let sender = 0; sender < senders; sender += 1) {
        await client.expect(
          201,
          'POST',
          '/sessions',
          jsonBody({ sessionId: sessionId(sender), cwd: '/work/tenant-a' }),
        );
      }
    },
    async run(deadline) {
      const counter = new StatusCounter();
      const sender = async (index: number): Promise<void> => {
        let leaf: string | null = null;
        for (let appended = 0; performance.now() < deadline; appended += 1) {
          const id = `a-large-${String(index).padStart(2, '0')}-${String(appended).padStart(6, '0')}`;
          const body: RequestBody = {
            chunks: [head(id, leaf, Date.now()), run, tail],
            contentType: 'application/json',
          };
          const status = await counter.timed(body, () =>
            client.request('POST', `/sessions/${sessionId(index)}/entries`, body),
          );
          if (status === 200) leaf = id;
        }
      };
      await Promise.all(Array.from({ length: senders }, (_, index) => sender(index)));
      return {
        name: 'appends',
        statuses: counter.counts,
        requestMs: counter.requestMs,
        bytesSent: counter.bytesSent,
        facts: {
          senders,
          bodyBytes: counter.bytesSent / Math.max(1, counter.requestMs.length),
          bodyLimitBytes,
        },
      };
    },
  };
}

// (c) ----------------------------------------------------------------------------------------

interface HeldStream {
  readonly status: number;
  readonly response: http.IncomingMessage;
  bytesRead: number;
  /** Whether a chunk was asked for and has not come yet (the engine sends nothing meanwhile). */
  waiting: boolean;
  close(): void;
}

/** `GET /events?from=start` on a connection of its own; resolves once the answer's head is in. */
function openStream(client: TenantHttp): Promise<HeldStream> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${client.baseUrl}/events?from=start`,
      { headers: client.headers({ accept: 'text/event-stream' }), agent: false },
      (response) => {
        response.pause();
        resolve({
          status: response.statusCode ?? 0,
          response,
          bytesRead: 0,
          waiting: false,
          close: () => request.destroy(),
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const SLOW_READ_INTERVAL_MS = 1_000;

/** Takes one chunk from the stream, then pauses it again (unless the last one has not come yet). */
function readOneChunk(stream: HeldStream): void {
  if (stream.waiting) return;
  stream.waiting = true;
  stream.response.once('data', (chunk: Buffer) => {
    stream.bytesRead += chunk.length;
    stream.waiting = false;
    stream.response.pause();
  });
  stream.response.resume();
}

/** Issue 22's attack (c): this many held streams, or A's share if the engine allows fewer. */
export const HELD_STREAMS_WANTED = 128;

/** How many streams attack (c) holds, and what the label says of that count. */
export function heldStreamCount(share: number): { count: number; why: string } {
  return share >= HELD_STREAMS_WANTED
    ? {
        count: HELD_STREAMS_WANTED,
        why:
          share === HELD_STREAMS_WANTED
            ? `${share}, A's whole share`
            : `${HELD_STREAMS_WANTED} of A's share of ${share}`,
      }
    : { count: share, why: `${share}, A's whole share (the engine allows A no more than that)` };
}

export function streamsAttack(attacker: TenantHttp, other: TenantHttp, share: number): Attack {
  const { count, why } = heldStreamCount(share);
  return {
    name: 'streams',
    label: `A holds event streams (${why}) from the start of the log, half read slowly, half not at all`,
    async prepare() {},
    async run(deadline) {
      const counter = new StatusCounter();
      const held: HeldStream[] = [];
      const opened = await Promise.all(
        Array.from({ length: count }, () =>
          counter.timed(undefined, async () => {
            const stream = await openStream(attacker);
            held.push(stream);
            return stream;
          }),
        ),
      );
      // one more stream of A is refused only when A holds its whole share
      let overShareStatus: number | string = 'not tried (A holds less than its share)';
      if (count === share) {
        const overShare = await openStream(attacker);
        overShare.close();
        overShareStatus = overShare.status;
      }
      const tenantBStream = await openStream(other);
      tenantBStream.close();
      const readers = held.filter((stream) => stream.status === 200).slice(0, Math.ceil(count / 2));
      const reading = setInterval(() => readers.forEach(readOneChunk), SLOW_READ_INTERVAL_MS);
      while (performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      clearInterval(reading);
      for (const stream of held) stream.close();
      return {
        name: 'streams',
        statuses: counter.counts,
        requestMs: counter.requestMs,
        bytesSent: 0,
        facts: {
          share,
          held: count,
          opened: opened.filter((status) => status === 200).length,
          slowReaders: readers.length,
          bytesReadByA: held.reduce((sum, stream) => sum + stream.bytesRead, 0),
          streamOverShareStatus: overShareStatus,
          tenantBStreamStatus: tenantBStream.status,
        },
      };
    },
  };
}
