// Who is calling: the API key presented (`Authorization: Bearer <key>` or `x-api-key`) looked up
// by its SHA-256 digest among the configured keys, which gives the tenant, the access and the
// actor the audit records (the key's name). With no key configured the engine is single-tenant:
// every caller is tenant `default` with full access, audited as `anonymous`, and keys are ignored.
import { timingSafeEqual } from 'node:crypto';
import { ANONYMOUS_ACTOR, DEFAULT_TENANT } from '../shared/command-context';
import { actorOfKey, hashApiKey, type ApiKeyAccess, type ApiKeyRecord } from './api-keys';

export { DEFAULT_TENANT };

export interface TenantPrincipal {
  readonly tenant: string;
  readonly access: ApiKeyAccess;
  /** The key's name (`actorOfKey`): the actor of every event written on the caller's behalf. */
  readonly actor: string;
  /** Who the caller says it acts for (`X-Strata-Actor`), recorded beside the actor. */
  readonly onBehalfOf?: string;
}

export type Authentication =
  | { readonly kind: 'authenticated'; readonly principal: TenantPrincipal }
  | { readonly kind: 'missing_key' }
  | { readonly kind: 'unknown_key' }
  | { readonly kind: 'conflicting_keys' };

export interface PresentedCredentials {
  /** The `Authorization` header as received. */
  readonly authorization?: string | undefined;
  /** The `x-api-key` header as received. */
  readonly apiKey?: string | undefined;
}

const singleTenantPrincipal: TenantPrincipal = {
  tenant: DEFAULT_TENANT,
  access: 'read_write',
  actor: ANONYMOUS_ACTOR,
};

function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization.trim());
  return match?.[1];
}

export class TenantDirectory {
  private readonly byHash: ReadonlyMap<string, ApiKeyRecord>;

  constructor(records: readonly ApiKeyRecord[]) {
    this.byHash = new Map(records.map((record) => [record.keyHash, record]));
  }

  get isSingleTenant(): boolean {
    return this.byHash.size === 0;
  }

  /** The tenants that have at least one key, sorted. */
  tenants(): readonly string[] {
    return [...new Set([...this.byHash.values()].map((record) => record.tenant))].sort();
  }

  authenticate(credentials: PresentedCredentials): Authentication {
    if (this.isSingleTenant) return { kind: 'authenticated', principal: singleTenantPrincipal };
    const fromBearer = bearerToken(credentials.authorization);
    const fromHeader = credentials.apiKey?.trim() || undefined;
    if (fromBearer !== undefined && fromHeader !== undefined && fromBearer !== fromHeader) {
      return { kind: 'conflicting_keys' };
    }
    const key = fromBearer ?? fromHeader;
    if (key === undefined) return { kind: 'missing_key' };
    const digest = hashApiKey(key);
    const record = this.byHash.get(digest);
    if (record === undefined || !timingSafeEqual(Buffer.from(record.keyHash), Buffer.from(digest))) {
      return { kind: 'unknown_key' };
    }
    return {
      kind: 'authenticated',
      principal: { tenant: record.tenant, access: record.access, actor: actorOfKey(record) },
    };
  }
}
