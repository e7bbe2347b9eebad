import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { waitUntil } from '@strata/testing';
import { generateAnchorSigningKey } from '../anchors/signing-key';
import { signLogEntry, type CheckpointLogEntry } from './log-entry';
import { FileWitness, UrlWitness } from './witnesses';

const key = generateAnchorSigningKey();

function checkpoint(position: number): CheckpointLogEntry {
  return signLogEntry(
    {
      kind: 'checkpoint',
      fromStorePosition: '-1',
      storePosition: String(position * 10),
      streams: 1,
      events: '1',
      heads: [],
      erased: [],
      part: 1,
      parts: 1,
    },
    { position: String(position), previousHash: '0'.repeat(64), time: new Date().toISOString() },
    key,
  ) as CheckpointLogEntry;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('witnesses', () => {
  describe('given a witness file', () => {
    it('appends each checkpoint handed over as one JSON line, in order', async () => {
      const directory = mkdtempSync(join(tmpdir(), 'strata-witness-'));
      try {
        const path = join(directory, 'witness.jsonl');
        const witness = new FileWitness(path);
        witness.handOver([checkpoint(1)]);
        witness.handOver([checkpoint(2), checkpoint(3)]);
        await witness.drain();
        const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
        expect(lines.map((line) => (JSON.parse(line) as { position: string }).position)).toEqual([
          '1',
          '2',
          '3',
        ]);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    it('reports a file it cannot write, and never throws to the caller', async () => {
      const errors: unknown[] = [];
      const witness = new FileWitness('/nonexistent-directory/witness.jsonl', {
        onError: (_, error) => errors.push(error),
      });
      expect(() => witness.handOver([checkpoint(1)])).not.toThrow();
      await witness.drain();
      expect(errors).toHaveLength(1);
    });
  });

  describe('given a witness endpoint that fails twice, then accepts', () => {
    let server: Server;
    let received: string[];
    let failures: number;

    beforeEach(async () => {
      received = [];
      failures = 2;
      server = createServer((request, response) => {
        void bodyOf(request).then((body) => {
          if (failures > 0) {
            failures -= 1;
            response.writeHead(503).end();
            return;
          }
          received.push(body);
          response.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    });

    afterEach(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('POSTs each batch as JSON Lines, retrying until it is taken, without ever blocking the caller', async () => {
      const errors: unknown[] = [];
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/witness`;
      const witness = new UrlWitness(url, { onError: (_, error) => errors.push(error) });
      // handing over returns at once, before anything reached the endpoint: the caller never waits
      // for delivery (this handler runs only once the caller gives the event loop back)
      const handedOver: unknown[] = [witness.handOver([checkpoint(1)]), witness.handOver([checkpoint(2)])];
      expect(handedOver).toEqual([undefined, undefined]);
      expect(received).toHaveLength(0);
      await waitUntil(() => received.length === 2, 'both batches are delivered', { timeoutMs: 30_000 });
      expect(received.map((body) => (JSON.parse(body.trimEnd()) as { position: string }).position)).toEqual([
        '1',
        '2',
      ]);
      expect(errors).toHaveLength(2);
      expect(witness.delivered).toBe(2);
      await witness.drain();
    });

    it('keeps at most its bound of batches waiting, dropping the oldest and saying so', async () => {
      failures = Number.POSITIVE_INFINITY;
      const errors: string[] = [];
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/witness`;
      const witness = new UrlWitness(url, { onError: (_, error) => errors.push(String(error)) }, 2);
      for (let position = 1; position <= 5; position += 1) witness.handOver([checkpoint(position)]);
      expect(witness.dropped).toBe(3);
      expect(errors.filter((error) => error.includes('the oldest checkpoint was dropped'))).toHaveLength(3);
      await witness.drain(Date.now() + 200);
    });
  });
});
