// A secure node (issue 26 item 5): TLS with a certificate of the deployment's own CA, and users.
// The store URL carries both, as it is passed to the client: `tls=true`, `tlsCAFile=<ca.crt>` and
// `username:password@`. Over the protocol test server in its TLS mode, with a CA and a server
// certificate made for the test by openssl (skipped, and said so, where openssl is missing).
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  canMakeTestCertificates,
  makeTestCertificates,
  startEsdbTestServer,
  type EsdbTestServer,
  type TestCertificates,
} from '@strata/testing';
import { collect } from '../contract';
import type { EventStore, EventToAppend } from '../port';
import { openEventStore } from '../store-url';

const USER = { username: 'strata-engine', password: 'a-password-of-the-test' };

function anEvent(): EventToAppend {
  return { id: randomUUID(), type: 'secure.written', data: { at: 'secure' } };
}

const describeWithOpenssl = canMakeTestCertificates() ? describe : describe.skip;
if (!canMakeTestCertificates()) console.info('Skipping the secure-node tests: openssl is not installed');

describeWithOpenssl('EsdbEventStore on a secure node (TLS with its own CA, and users)', () => {
  let directory: string;
  let certificates: TestCertificates;
  let server: EsdbTestServer;
  const opened: EventStore[] = [];

  function storeAt(url: string): EventStore {
    const store = openEventStore(url);
    opened.push(store);
    return store;
  }

  const urlOf = (credentials: string, query: string) =>
    `kurrentdb://${credentials}localhost:${server.port}?${query}`;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-secure-'));
    certificates = makeTestCertificates(directory);
    server = await startEsdbTestServer({
      tls: { certificate: certificates.certificate, privateKey: certificates.privateKey },
      credentials: USER,
    });
  });

  afterAll(async () => {
    await Promise.all(opened.map((store) => store.close()));
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('appends, reads and subscribes over TLS with the CA file and the user of the URL', async () => {
    const store = storeAt(
      urlOf(`${USER.username}:${USER.password}@`, `tls=true&tlsCAFile=${certificates.caFile}`),
    );
    const written = [anEvent(), anEvent()];
    await store.appendToStream('secure-1', written, { expectedRevision: 'no_stream' });
    expect((await collect(store.readStream('secure-1'))).map((event) => event.id)).toEqual(
      written.map((event) => event.id),
    );
    const subscription = store.subscribe({ filter: { streamPrefixes: ['secure-'] } });
    const seen: string[] = [];
    for await (const message of subscription) {
      if (message.kind === 'caught_up') break;
      if (message.kind === 'event') seen.push(message.event.id);
    }
    await subscription.close();
    expect(seen).toEqual(written.map((event) => event.id));
  });

  it('is refused with a wrong password, and nothing is stored', async () => {
    const refused = storeAt(
      urlOf(`${USER.username}:wrong-password@`, `tls=true&tlsCAFile=${certificates.caFile}`),
    );
    await expect(refused.appendToStream('secure-2', [anEvent()])).rejects.toMatchObject({
      type: 'access-denied',
    });
    const allowed = storeAt(
      urlOf(`${USER.username}:${USER.password}@`, `tls=true&tlsCAFile=${certificates.caFile}`),
    );
    expect(await allowed.streamRevision('secure-2')).toBeNull();
  });

  it('is refused without credentials', async () => {
    const anonymous = storeAt(urlOf('', `tls=true&tlsCAFile=${certificates.caFile}`));
    await expect(anonymous.appendToStream('secure-3', [anEvent()])).rejects.toMatchObject({
      type: 'access-denied',
    });
  });

  it("does not connect when the client does not trust the node's CA", async () => {
    const untrusting = storeAt(urlOf(`${USER.username}:${USER.password}@`, 'tls=true&defaultDeadline=5000'));
    await expect(untrusting.appendToStream('secure-4', [anEvent()])).rejects.toThrow(
      /UNAVAILABLE.*unable to verify the first certificate/,
    );
  });
});
