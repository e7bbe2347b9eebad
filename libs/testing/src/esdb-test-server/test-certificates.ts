// TEST FIXTURE. A certificate authority and a server certificate for `localhost` and 127.0.0.1,
// made with the openssl command (Node cannot issue certificates), for the protocol test server's
// TLS mode: the files a secure node and its clients are given (ca.crt, node.crt, node.key).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TestCertificates {
  /** The CA certificate file, for the client's `tlsCAFile`. */
  readonly caFile: string;
  /** The server's certificate and private key (PEM text), for `startEsdbTestServer({ tls })`. */
  readonly certificate: string;
  readonly privateKey: string;
}

/** Whether the openssl command is there to make certificates. */
export function canMakeTestCertificates(): boolean {
  return spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;
}

/** Makes a CA and a server certificate signed by it in `directory` (one day of validity). */
export function makeTestCertificates(directory: string): TestCertificates {
  const file = (name: string) => join(directory, name);
  /** Runs openssl with the words of `command`, then `files` (flag and file name pairs). */
  const openssl = (command: string, files: Record<string, string>) =>
    execFileSync(
      'openssl',
      [...command.split(' '), ...Object.entries(files).flatMap(([flag, name]) => [flag, file(name)])],
      { stdio: 'pipe' },
    );
  const newKey = 'rsa:2048';
  openssl(`req -x509 -newkey ${newKey} -nodes -days 1 -subj /CN=strata-test-ca`, {
    '-keyout': 'ca.key',
    '-out': 'ca.crt',
  });
  openssl(`req -newkey ${newKey} -nodes -subj /CN=localhost`, { '-keyout': 'node.key', '-out': 'node.csr' });
  writeFileSync(file('node.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl('x509 -req -CAcreateserial -days 1', {
    '-in': 'node.csr',
    '-CA': 'ca.crt',
    '-CAkey': 'ca.key',
    '-extfile': 'node.ext',
    '-out': 'node.crt',
  });
  return {
    caFile: file('ca.crt'),
    certificate: readFileSync(file('node.crt'), 'utf8'),
    privateKey: readFileSync(file('node.key'), 'utf8'),
  };
}
