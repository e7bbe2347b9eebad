// API keys and the tenants they stand for. Keys are never kept in clear: the engine holds their
// SHA-256 digests only. Two sources:
//   STRATA_API_KEYS       `tenant:key` pairs (`tenant:key:read` for a read-only key), separated
//                         by commas, spaces or new lines; hashed as they are read;
//   STRATA_API_KEYS_FILE  a file of `tenant:<sha256 hex of the key>[:read]` lines (`#` comments).
import { createHash } from 'node:crypto';

/** `read_write` may do everything; `read_only` may read and subscribe but not write. */
export type ApiKeyAccess = 'read_write' | 'read_only';

export interface ApiKeyRecord {
  readonly tenant: string;
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
export const MINIMUM_API_KEY_LENGTH = 16;
const API_KEY_PATTERN = /^[A-Za-z0-9_\-.~+/=]+$/;
const KEY_HASH_PATTERN = /^[0-9a-f]{64}$/;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

function accessOf(flag: string | undefined): ApiKeyAccess | undefined {
  if (flag === undefined) return 'read_write';
  return flag === 'read' ? 'read_only' : undefined;
}

function tenantProblem(tenant: string): string | undefined {
  return TENANT_NAME_PATTERN.test(tenant)
    ? undefined
    : `tenant '${tenant}' must be 1-64 letters, digits, '.', '_' or '-' starting with a letter or digit`;
}

/** Reads `STRATA_API_KEYS`. Problems never quote the key itself. */
export function parseApiKeyPairs(text: string, sourceName = 'STRATA_API_KEYS'): ParsedApiKeys {
  const records: ApiKeyRecord[] = [];
  const problems: string[] = [];
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  entries.forEach((entry, index) => {
    const source = `${sourceName} entry ${index + 1}`;
    const [tenant = '', key = '', flag, ...extra] = entry.split(':');
    const access = accessOf(flag);
    const problem =
      key === '' || extra.length > 0
        ? `must be tenant:key or tenant:key:read`
        : (tenantProblem(tenant) ??
          (access === undefined ? `the flag after the key must be 'read', not '${flag}'` : undefined) ??
          (key.length < MINIMUM_API_KEY_LENGTH
            ? `the key of tenant '${tenant}' is shorter than ${MINIMUM_API_KEY_LENGTH} characters`
            : undefined) ??
          (API_KEY_PATTERN.test(key)
            ? undefined
            : `the key of tenant '${tenant}' may hold only letters, digits and - _ . ~ + / =`));
    if (problem !== undefined || access === undefined) problems.push(`${source}: ${problem}`);
    else records.push({ tenant, keyHash: hashApiKey(key), access, source });
  });
  return { records, problems };
}

/** Reads a file of hashed keys (its text and its name for messages). */
export function parseHashedKeyFile(text: string, fileName: string): ParsedApiKeys {
  const records: ApiKeyRecord[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((rawLine, index) => {
    const line = rawLine.replace(/#.*$/, '').trim();
    if (line === '') return;
    const source = `${fileName} line ${index + 1}`;
    const [tenant = '', digest = '', flag, ...extra] = line.split(':').map((part) => part.trim());
    const access = accessOf(flag);
    const problem =
      digest === '' || extra.length > 0
        ? 'must be tenant:<sha256 hex of the key> or tenant:<sha256 hex>:read'
        : (tenantProblem(tenant) ??
          (access === undefined ? `the flag after the hash must be 'read', not '${flag}'` : undefined) ??
          (KEY_HASH_PATTERN.test(digest.toLowerCase())
            ? undefined
            : 'the hash must be 64 hexadecimal characters (SHA-256 of the key)'));
    if (problem !== undefined || access === undefined) problems.push(`${source}: ${problem}`);
    else records.push({ tenant, keyHash: digest.toLowerCase(), access, source });
  });
  return { records, problems };
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
