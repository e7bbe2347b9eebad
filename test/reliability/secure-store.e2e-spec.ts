// `npm start` on a secure KurrentDB node (issue 26 item 5): TLS with the deployment's own CA and
// a user, all in STRATA_STORE (`kurrentdb://user:password@host:2113?tls=true&tlsCAFile=ca.crt`).
// The engine process serves on it and its start-up message masks the password; with a wrong
// password it exits 1 at once, naming the refusal, without the password. Over the protocol test
// server in its TLS mode (skipped, and said so, where openssl is missing).
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
import { startEngineProcess } from './support/engine-process';

jest.setTimeout(120_000);

const USER = { username: 'strata-engine', password: 'the-secret-of-this-test' };
const describeWithOpenssl = canMakeTestCertificates() ? describe : describe.skip;
if (!canMakeTestCertificates()) console.info('Skipping the secure-store tests: openssl is not installed');

describeWithOpenssl('the engine on a secure node', () => {
  let directory: string;
  let certificates: TestCertificates;
  let server: EsdbTestServer;

  const storeUrl = (password: string) =>
    `kurrentdb://${USER.username}:${password}@localhost:${server.port}?tls=true&tlsCAFile=${certificates.caFile}`;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'strata-secure-store-'));
    certificates = makeTestCertificates(directory);
    server = await startEsdbTestServer({
      tls: { certificate: certificates.certificate, privateKey: certificates.privateKey },
      credentials: USER,
    });
  });

  afterAll(async () => {
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves over TLS with the user of the URL, the password masked in its start-up message', async () => {
    const engine = await startEngineProcess({
      directory,
      environment: {
        STRATA_STORE: storeUrl(USER.password),
        STRATA_PROJECTIONS_DB: join(directory, 'projections.db'),
      },
    });
    try {
      expect(engine.stdout()).toContain(
        `store:          EventStoreDB esdb://***@localhost:${server.port}?tls=true`,
      );
      expect(engine.stdout() + engine.stderr()).not.toContain(USER.password);
      expect((await engine.request('GET', '/ready')).status).toBe(200);
      const started = await engine.request('POST', '/sessions', { sessionId: 'secure', cwd: '/work' });
      expect(started.status).toBe(201);
      expect((await engine.request('GET', '/sessions/secure')).status).toBe(200);
    } finally {
      await engine.kill('SIGTERM');
    }
  });

  it('exits 1 at once with a wrong password, naming the refusal and not the password', async () => {
    const failure = await startEngineProcess({
      directory,
      environment: {
        STRATA_STORE: storeUrl('not-the-password'),
        STRATA_PROJECTIONS_DB: join(directory, 'projections-refused.db'),
        STRATA_STORE_WAIT_MS: '60000',
      },
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const message = (failure as Error).message;
    expect(message).toContain('ended (1) before it listened');
    expect(message).toContain(
      `Strata engine: the event store (EventStoreDB esdb://***@localhost:${server.port}?tls=true&tlsCAFile=${certificates.caFile}) refused the engine's credentials (access denied); check the user and password in STRATA_STORE`,
    );
    expect(message).not.toContain('    at ');
    expect(message).not.toContain('not-the-password');
  });
});
