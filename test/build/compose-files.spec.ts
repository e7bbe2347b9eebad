// The two compose files, read as text (no YAML parser is a dependency of ours): docker-compose.yml
// runs one supported KurrentDB node (25 or later, KURRENTDB_* settings, data in /var/lib/kurrentdb,
// a maximum append size that fits Strata's bounds) and the engine built from the Dockerfile;
// docker-compose.cluster.yml runs three nodes that seed each other and two engines with their own
// ids and one signing key. Every long-running service has a health check and a restart policy, and
// no port is published beyond this machine. CI also runs `docker compose config` on both where the
// client exists (.ci/compose-config.sh).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseStoreUrl } from '@strata/event-store';
import { repositoryRoot } from '@strata/testing';
import { loadEngineConfig } from '../../apps/engine/src/config/engine-config';

const KURRENTDB_IMAGE = /^docker\.kurrent\.io\/kurrent-latest\/kurrentdb:(\d+)\.(\d+)\.(\d+)$/;
/** The node's own ceiling on MaxAppendSize. */
const NODE_MAX_APPEND_BYTES = 16 * 1024 * 1024;

/** Each service of a compose file with the lines of its block (two-space indentation). */
function servicesOf(text: string): Map<string, string[]> {
  const lines = text.split('\n');
  const start = lines.indexOf('services:');
  expect(start).toBeGreaterThanOrEqual(0);
  const services = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of lines.slice(start + 1)) {
    if (/^\S/.test(line)) break;
    const header = /^ {2}([a-z0-9-]+):$/.exec(line);
    if (header?.[1] !== undefined) {
      current = [];
      services.set(header[1], current);
    } else if (current !== undefined && line.trim() !== '' && !line.trimStart().startsWith('#')) {
      current.push(line);
    }
  }
  return services;
}

/** The value of a key directly under the service (`image`, `restart`), without quotes. */
function setting(block: readonly string[], key: string): string | undefined {
  const pattern = new RegExp(`^ {4}${key}: (.*)$`);
  const value = block.map((line) => pattern.exec(line)?.[1]).find((found) => found !== undefined);
  return value?.replace(/^'(.*)'$/, '$1');
}

/** The entries of a nested mapping or list of the service (`environment`, `ports`, `volumes`). */
function section(block: readonly string[], key: string): string[] {
  const start = block.indexOf(`    ${key}:`);
  if (start === -1) return [];
  const entries: string[] = [];
  for (const line of block.slice(start + 1)) {
    if (!line.startsWith('      ')) break;
    entries.push(line.trim());
  }
  return entries;
}

function environmentOf(block: readonly string[]): Map<string, string> {
  return new Map(
    section(block, 'environment').map((entry) => {
      const match = /^([A-Z0-9_]+): '(.*)'$/.exec(entry);
      if (match?.[1] === undefined || match[2] === undefined) throw new Error(`unquoted entry: ${entry}`);
      return [match[1], match[2]];
    }),
  );
}

function read(name: string): Map<string, string[]> {
  return servicesOf(readFileSync(join(repositoryRoot, name), 'utf8'));
}

function expectSupportedKurrentDbNode(name: string, block: readonly string[]): Map<string, string> {
  const image = KURRENTDB_IMAGE.exec(setting(block, 'image') ?? '');
  expect({ name, image: setting(block, 'image') }).toEqual({
    name,
    image: expect.stringMatching(KURRENTDB_IMAGE),
  });
  expect(Number(image?.[1])).toBeGreaterThanOrEqual(25);
  const environment = environmentOf(block);
  expect([...environment.keys()].filter((variable) => !variable.startsWith('KURRENTDB_'))).toEqual([]);
  const maxAppendBytes = Number(environment.get('KURRENTDB_MAX_APPEND_SIZE'));
  expect(maxAppendBytes).toBeGreaterThanOrEqual(loadEngineConfig({}).jsonBodyLimitBytes);
  expect(maxAppendBytes).toBeLessThanOrEqual(NODE_MAX_APPEND_BYTES);
  expect(section(block, 'volumes')).toEqual(
    expect.arrayContaining([expect.stringMatching(/^- [a-z0-9-]+:\/var\/lib\/kurrentdb$/)]),
  );
  expect(section(block, 'healthcheck')).toContain(
    "test: ['CMD-SHELL', 'curl -fsS http://localhost:2113/health/live || exit 1']",
  );
  return environment;
}

function expectEngine(block: readonly string[], nodes: readonly string[]): Map<string, string> {
  expect(setting(block, 'build')).toBe('.');
  expect(section(block, 'healthcheck')).toContain(
    "test: ['CMD', 'node', '/opt/strata/scripts/container/healthcheck.js']",
  );
  const dependsOn = section(block, 'depends_on').join('\n');
  for (const node of nodes) expect(dependsOn).toContain(`${node}:\ncondition: service_healthy`);
  const environment = environmentOf(block);
  const location = parseStoreUrl(environment.get('STRATA_STORE') ?? '');
  expect(location.kind).toBe('esdb');
  for (const node of nodes) expect(environment.get('STRATA_STORE')).toContain(`${node}:2113`);
  return environment;
}

function expectLongRunningServicesKept(services: Map<string, string[]>, oneShot: readonly string[]): void {
  for (const [name, block] of services) {
    const expected = oneShot.includes(name) ? 'no' : 'unless-stopped';
    expect({ name, restart: setting(block, 'restart') }).toEqual({ name, restart: expected });
    if (!oneShot.includes(name))
      expect({ name, healthcheck: section(block, 'healthcheck').length > 0 }).toEqual({
        name,
        healthcheck: true,
      });
    for (const port of section(block, 'ports')) expect(port).toMatch(/^- '127\.0\.0\.1:\d+:\d+'$/);
  }
}

describe('docker-compose.yml', () => {
  const services = read('docker-compose.yml');

  it('runs one KurrentDB node and the engine built from the Dockerfile on it', () => {
    expect([...services.keys()]).toEqual(['kurrentdb', 'engine']);
    const node = expectSupportedKurrentDbNode('kurrentdb', services.get('kurrentdb') ?? []);
    expect(node.get('KURRENTDB_CLUSTER_SIZE')).toBe('1');
    const engine = expectEngine(services.get('engine') ?? [], ['kurrentdb']);
    expect(engine.get('STRATA_STORE')).toMatch(/^kurrentdb:\/\/kurrentdb:2113\?tls=false$/);
    expect(engine.get('STRATA_HOST')).toBe('0.0.0.0');
  });

  it('keeps every service running with a health check, on ports of this machine only', () => {
    expectLongRunningServicesKept(services, []);
  });
});

describe('docker-compose.cluster.yml', () => {
  const services = read('docker-compose.cluster.yml');
  const nodes = ['node1', 'node2', 'node3'];
  const engines = ['engine-a', 'engine-b'];

  it('runs three KurrentDB nodes, each seeded with the two others', () => {
    expect(
      [...services.keys()].filter((name) =>
        setting(services.get(name) ?? [], 'image')?.includes('kurrentdb'),
      ),
    ).toEqual(nodes);
    for (const node of nodes) {
      const environment = expectSupportedKurrentDbNode(node, services.get(node) ?? []);
      expect(environment.get('KURRENTDB_CLUSTER_SIZE')).toBe('3');
      const others = nodes.filter((other) => other !== node).map((other) => `${other}:2113`);
      expect(environment.get('KURRENTDB_GOSSIP_SEED')).toBe(others.join(','));
    }
  });

  it('runs two engines with their own ids and data on the whole cluster, signing with one shared key', () => {
    const configured = engines.map((engine) => {
      const block = services.get(engine) ?? [];
      const environment = expectEngine(block, nodes);
      expect(environment.get('STRATA_STORE')).toMatch(/^kurrentdb\+discover:\/\//);
      expect(section(block, 'depends_on').join('\n')).toContain(
        'signing-key:\ncondition: service_completed_successfully',
      );
      return { environment, volumes: section(block, 'volumes') };
    });
    const [first, second] = configured;
    expect(first?.environment.get('STRATA_ENGINE_ID')).toBe('engine-a');
    expect(second?.environment.get('STRATA_ENGINE_ID')).toBe('engine-b');
    expect(first?.environment.get('STRATA_SIGNING_KEY_FILE')).toBe('/var/lib/strata/keys/signing-key.pem');
    expect(second?.environment.get('STRATA_SIGNING_KEY_FILE')).toBe(
      first?.environment.get('STRATA_SIGNING_KEY_FILE'),
    );
    expect(first?.volumes).toEqual([
      '- engine-a-data:/var/lib/strata',
      '- signing-key:/var/lib/strata/keys:ro',
    ]);
    expect(second?.volumes).toEqual([
      '- engine-b-data:/var/lib/strata',
      '- signing-key:/var/lib/strata/keys:ro',
    ]);
    expect(section(services.get('signing-key') ?? [], 'volumes')).toEqual([
      '- signing-key:/var/lib/strata/keys',
    ]);
  });

  it('keeps every long-running service running with a health check, on ports of this machine only', () => {
    expectLongRunningServicesKept(services, ['signing-key']);
  });
});
