// What `npm start` prints once the engine listens: where the API, its documentation and the
// viewers are, the store and the tenancy, and the settings in effect — which settings file, the
// context windows, and the summariser candidates in the order they are tried.
import { describeStore, type EngineConfig } from './config/engine-config';
import type { EngineSettings } from './settings/engine-settings.schema';
import { describeSummarizerCandidates, type Environment } from './summarizers/summarizer-candidates';
import { TenantDirectory } from './tenancy/tenant-directory';
import { LOOPBACK_WITHOUT_KEYS } from './config/engine-config';

export interface StartupFacts {
  readonly config: EngineConfig;
  /** The address the engine listens on, as a client would use it. */
  readonly url: string;
  readonly settings: EngineSettings;
  /** The absolute path of the settings file read, if any. */
  readonly settingsFile: string | undefined;
  /** Where provider keys are read (which candidates are left out). */
  readonly environment: Environment;
  /** Why the audit viewer cannot be served (not built), in one line; undefined when it can. */
  readonly viewerMissing?: string | undefined;
  /** The anchor signing key in use. */
  readonly anchors?: {
    readonly enabled: boolean;
    readonly keyId: string;
    readonly keyFile: string;
    readonly keyCreated: boolean;
    readonly publicKeyPem: string;
  };
}

const tokens = (count: number): string => count.toLocaleString('en-GB');

/** `128,000 tokens by default; claude-opus-4-5 200,000; …` */
export function describeContextWindows(settings: Pick<EngineSettings, 'models'>): string {
  const { defaultContextWindow, contextWindows } = settings.models;
  const overrides = Object.entries(contextWindows).map(([model, window]) => `${model} ${tokens(window)}`);
  return [`${tokens(defaultContextWindow)} tokens by default`, ...overrides].join('; ');
}

function anchorLines(anchors: StartupFacts['anchors'], url: string): string[] {
  if (anchors === undefined) return [];
  const state = anchors.enabled ? 'signing session heads' : 'off (STRATA_ANCHORS=off): nothing is signed';
  const made = anchors.keyCreated ? ', made now' : '';
  return [
    `  anchors:        ${state}; key ${anchors.keyId} (${anchors.keyFile}${made}); public key at ${url}/anchors/public-key:`,
    ...anchors.publicKeyPem
      .trim()
      .split('\n')
      .map((line) => `                  ${line}`),
  ];
}

export function startupMessage(facts: StartupFacts): string {
  const { config, url, settings } = facts;
  const directory = new TenantDirectory(config.apiKeys);
  const loopbackOnly =
    directory.isSingleTenant && (facts.environment['STRATA_HOST'] ?? '').trim() === ''
      ? `; listening on ${LOOPBACK_WITHOUT_KEYS} only, since anyone who reaches it may write (STRATA_HOST=0.0.0.0 listens on every interface)`
      : '';
  const tenancy = directory.isSingleTenant
    ? `single-tenant (no API keys configured: every request is tenant "default"; set STRATA_API_KEYS to require keys${loopbackOnly})`
    : `${directory.tenants().length} tenant(s) by API key: ${directory.tenants().join(', ')}`;
  const settingsFile =
    facts.settingsFile === undefined
      ? 'none: every setting has its default (STRATA_SETTINGS names a JSON file)'
      : `${facts.settingsFile} (STRATA_SETTINGS)`;
  const summarizers = describeSummarizerCandidates(settings, facts.environment);
  const inEffect = summarizers.filter((candidate) => !candidate.includes('(left out:'));
  return [
    `Strata engine listening on ${url}`,
    `  API:            ${url}/sessions`,
    `  documentation:  ${url}/docs (OpenAPI: ${url}/docs/openapi.json)`,
    `  event stream:   ${url}/events`,
    `  audit viewer:   ${facts.viewerMissing === undefined ? `${url}/ui` : `not served: ${facts.viewerMissing}`}`,
    `  health:         ${url}/health, ${url}/ready, metrics: ${url}/metrics`,
    `  store:          ${describeStore(config.storeLocation)}`,
    `  tenancy:        ${tenancy}`,
    `  settings:       ${settingsFile}`,
    `  context windows: ${describeContextWindows(settings)}`,
    `  summarisers:    ${summarizers.join(', then ')}${inEffect.length === 0 ? ' (none in effect: every summary will fail)' : ''}`,
    ...anchorLines(facts.anchors, url),
    '',
  ].join('\n');
}
