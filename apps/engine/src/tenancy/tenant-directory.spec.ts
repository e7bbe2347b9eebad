import { hashApiKey, parseApiKeyPairs } from './api-keys';
import { TenantDirectory } from './tenant-directory';

const keys = parseApiKeyPairs('acme:ci-bot:acme-key-0123456789ab,globex:globex-key-0123456789:read').records;

describe('given no configured keys', () => {
  const directory = new TenantDirectory([]);

  it('is single-tenant: every caller is tenant default with full access, audited as anonymous, key or not', () => {
    expect(directory.isSingleTenant).toBe(true);
    expect(directory.authenticate({})).toEqual({
      kind: 'authenticated',
      principal: { tenant: 'default', access: 'read_write', actor: 'anonymous' },
    });
    expect(directory.authenticate({ apiKey: 'whatever' })).toMatchObject({
      principal: { tenant: 'default' },
    });
  });
});

describe('given keys of two tenants', () => {
  const directory = new TenantDirectory(keys);

  it('authenticates a bearer token or an x-api-key header to its tenant, access and actor (the key name)', () => {
    expect(directory.authenticate({ authorization: 'Bearer acme-key-0123456789ab' })).toEqual({
      kind: 'authenticated',
      principal: { tenant: 'acme', access: 'read_write', actor: 'ci-bot' },
    });
    expect(directory.authenticate({ apiKey: 'globex-key-0123456789' })).toEqual({
      kind: 'authenticated',
      principal: {
        tenant: 'globex',
        access: 'read_only',
        actor: `key:${hashApiKey('globex-key-0123456789').slice(0, 12)}`,
      },
    });
    expect(directory.tenants()).toEqual(['acme', 'globex']);
  });

  it('tells a missing key from an unknown one and from two different keys', () => {
    expect(directory.authenticate({})).toEqual({ kind: 'missing_key' });
    expect(directory.authenticate({ authorization: 'Basic abc' })).toEqual({ kind: 'missing_key' });
    expect(directory.authenticate({ apiKey: 'acme-key-0123456789ac' })).toEqual({ kind: 'unknown_key' });
    expect(
      directory.authenticate({
        authorization: 'Bearer acme-key-0123456789ab',
        apiKey: 'globex-key-0123456789',
      }),
    ).toEqual({ kind: 'conflicting_keys' });
  });

  it('keeps only digests of the keys', () => {
    expect(JSON.stringify(keys)).not.toContain('acme-key-0123456789ab');
  });
});
