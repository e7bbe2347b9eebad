// API keys, the tenants they stand for and the names they are audited by. Keys are never kept in
// clear: the engine holds their SHA-256 digests only. Two sources:
//   STRATA_API_KEYS       entries `tenant[:name]:key[:role]` separated by commas, spaces or new
//                         lines; hashed as they are read;
//   STRATA_API_KEYS_FILE  a file of `tenant[:name]:<sha256 hex of the key>[:role]` lines (`#` comments).
// How an entry is read: its fields are split at `:`. Two fields are `tenant:key`; four are
// `tenant:name:key:role`; of three, the last is the role when it is shorter than
// MINIMUM_API_KEY_LENGTH (`tenant:key:read`) and the key otherwise (`tenant:name:key`) — a key
// (or its 64-digit hash) is never that short and a role always is, so no entry reads two ways.
// The roles are `read` (a read-only key) and `admin` (full access and erasure); no role is read and
// write. Names identify keys in
// the audit (`actor` of every event written with the key); a key without one is audited as
// `key:<first 12 hex digits of its hash>`.
import { createHash } from 'node:crypto';

/**
 * `read_write` may read and write; `read_only` may read and subscribe but not write; `admin` may
 * do what `read_write` does and erase the tenant's sessions.
 */
export type ApiKeyAccess = 'read_write' | 'read_only' | 'admin';

export interface ApiKeyRecord {
  readonly tenant: string;
  /** The configured name of the key; undefined for entries of the forms without one. */
  readonly name?: string;
  /** SHA-256 of the key, lower-case hex. */
  readonly keyHash: string;
  readonly access: ApiKeyAccess;
  /** Where it was configured, for messages (`STRATA_API_KEYS entry 2`, `keys.txt line 4`). */
  readonly source: string;
}

export interface ParsedApiKeys {
  readonly records: readonly ApiKeyRecord[];
  /** One message per unusable entry; nothing is accepted from a source with problems. */
  readonly problems: readonly string[];
}

export const TENANT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A key's name: what the audit records as the actor of its writes. */
export const KEY_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@+-]{0,63}$/;
export const MINIMUM_API_KEY_LENGTH = 16;
const API_KEY_PATTERN = /^[A-Za-z0-9_\-.~+/=]+$/;
const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;
/** Hex digits of the hash that name a key configured without a name. */
const UNNAMED_KEY_DIGITS = 12;

/**
 * The access each role gives (a key without a role has full access). Roles are words shorter
 * than a key, so that a three-field entry reads one way only; a new role is one more line here.
 */
const ROLE_ACCESS: Readonly<Record<string, ApiKeyAccess>> = { read: 'read_only', admin: 'admin' };
const KNOWN_ROLES = Object.keys(ROLE_ACCESS)
  .map((role) => `'${role}'`)
  .join(', ');

/** Names a key may not take: those of the engine's own writers, and who a caller without a key is. */
const RESERVED_NAME_PATTERN = /^(?:strata-|anonymous$)/i;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Who the audit says wrote with this key: its name, else `key:` and the start of its hash. */
export function actorOfKey(record: Pick<ApiKeyRecord, 'name' | 'keyHash'>): string {
  return record.name ?? `key:${record.keyHash.slice(0, UNNAMED_KEY_DIGITS)}`;
}

/** The fields of one entry, before the secret (a key or its hash) is checked. */
interface EntryFields {
  readonly tenant: string;
  readonly name?: string;
  readonly secret: string;
  readonly access: ApiKeyAccess;
}

/** What a source calls its secret and how it checks one. */
interface SecretKind {
  /** `key` or `hash`, for messages. */
  readonly noun: string;
  /** The forms an entry may take, for messages. */
  readonly forms: string;
  /** A problem with the secret (never quoting it), or undefined. */
  readonly problem: (secret: string, tenant: string) => string | undefined;
  /** The digest kept for a valid secret. */
  readonly digest: (secret: string) => string;
}

const clearKeys: SecretKind = {
  noun: 'key',
  forms: 'tenant:key, tenant:name:key, or either with :read or :admin after the key',
  problem: (key, tenant) =>
    key.length < MINIMUM_API_KEY_LENGTH
      ? `the key of tenant '${tenant}' is shorter than ${MINIMUM_API_KEY_LENGTH} characters`
      : API_KEY_PATTERN.test(key)
        ? undefined
        : `the key of tenant '${tenant}' may hold only letters, digits and - _ . ~ + / =`,
  digest: hashApiKey,
};

const hashedKeys: SecretKind = {
  noun: 'hash',
  forms:
    'tenant:<sha256 hex of the key>, tenant:name:<sha256 hex>, with :read after it for a read-only key or :admin for an admin key',
  problem: (digest) =>
    KEY_HASH_PATTERN.test(digest.toLowerCase())
      ? undefined
      : 'the hash must be 64 hexadecimal characters (SHA-256 of the key)',
  digest: (digest) => digest.toLowerCase(),
};

function tenantProblem(tenant: string): string | undefined {
  return TENANT_NAME_PATTERN.test(tenant)
    ? undefined
    : `tenant '${tenant}' must be 1-64 letters, digits, '.', '_' or '-' starting with a letter or digit`;
}

function nameProblem(name: string | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (!KEY_NAME_PATTERN.test(name)) {
    return `the key name '${name}' must be 1-64 letters, digits, '.', '_', '@', '+' or '-' starting with a letter or digit`;
  }
  return RESERVED_NAME_PATTERN.test(name)
    ? `the key name '${name}' is reserved (names starting with 'strata-', and 'anonymous')`
    : undefined;
}

/** Splits an entry into its fields (see the header for how three fields are read). */
function entryFields(fields: readonly string[], kind: SecretKind): EntryFields | string {
  const [tenant = '', second = '', third, fourth] = fields;
  let name: string | undefined;
  let secret: string;
  let role: string | undefined;
  if (fields.length === 2) secret = second;
  else if (fields.length === 3 && third !== undefined && third.length < MINIMUM_API_KEY_LENGTH) {
    secret = second;
    role = third;
  } else if (fields.length === 3 || fields.length === 4) {
    name = second;
    secret = third ?? '';
    role = fourth;
  } else return `must be ${kind.forms}`;
  if (secret === '' || name === '' || role === '') return `must be ${kind.forms}`;
  const access = role === undefined ? 'read_write' : ROLE_ACCESS[role];
  if (access === undefined) {
    // Three fields with a short last one: it may be a mistyped key, so it is not quoted.
    return fields.length === 3
      ? `the field after the ${kind.noun} is not a role (${KNOWN_ROLES}), and a ${kind.noun} has at least ${MINIMUM_API_KEY_LENGTH} characters`
      : `the role '${role}' is not one of ${KNOWN_ROLES}`;
  }
  return { tenant, ...(name !== undefined ? { name } : {}), secret, access };
}

function parseEntry(fields: readonly string[], source: string, kind: SecretKind): ApiKeyRecord | string {
  const entry = entryFields(fields, kind);
  if (typeof entry === 'string') return `${source}: ${entry}`;
  const problem =
    tenantProblem(entry.tenant) ?? nameProblem(entry.name) ?? kind.problem(entry.secret, entry.tenant);
  if (problem !== undefined) return `${source}: ${problem}`;
  return {
    tenant: entry.tenant,
    ...(entry.name !== undefined ? { name: entry.name } : {}),
    keyHash: kind.digest(entry.secret),
    access: entry.access,
    source,
  };
}

function collect(entries: readonly { fields: readonly string[]; source: string }[], kind: SecretKind) {
  const records: ApiKeyRecord[] = [];
  const problems: string[] = [];
  for (const { fields, source } of entries) {
    const parsed = parseEntry(fields, source, kind);
    if (typeof parsed === 'string') problems.push(parsed);
    else records.push(parsed);
  }
  return { records, problems };
}

/** Reads `STRATA_API_KEYS`. Problems never quote the key itself. */
export function parseApiKeyPairs(text: string, sourceName = 'STRATA_API_KEYS'): ParsedApiKeys {
  const entries = text
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry, index) => ({ fields: entry.split(':'), source: `${sourceName} entry ${index + 1}` }));
  return collect(entries, clearKeys);
}

/** Reads a file of hashed keys (its text and its name for messages). */
export function parseHashedKeyFile(text: string, fileName: string): ParsedApiKeys {
  const entries = text.split(/\r?\n/).flatMap((rawLine, index) => {
    const line = rawLine.replace(/#.*$/, '').trim();
    if (line === '') return [];
    return [{ fields: line.split(':').map((part) => part.trim()), source: `${fileName} line ${index + 1}` }];
  });
  return collect(entries, hashedKeys);
}

/** Two records for the same key are a configuration error (which tenant would it be?). */
export function duplicateKeyProblems(records: readonly ApiKeyRecord[]): string[] {
  const firstSource = new Map<string, string>();
  const problems: string[] = [];
  for (const record of records) {
    const earlier = firstSource.get(record.keyHash);
    if (earlier !== undefined) problems.push(`${record.source}: the same key is already given by ${earlier}`);
    else firstSource.set(record.keyHash, record.source);
  }
  return problems;
}
