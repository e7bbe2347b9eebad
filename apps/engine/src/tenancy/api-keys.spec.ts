import { actorOfKey, hashApiKey, parseApiKeyPairs, parseHashedKeyFile } from './api-keys';

const KEY = 'ci-bot-key-0123456789';
const HASH = hashApiKey(KEY);

describe('given STRATA_API_KEYS entries of every form', () => {
  const parsed = parseApiKeyPairs(
    [
      `acme:${KEY}`,
      `acme:${KEY}-two:read`,
      `acme:billing-service:${KEY}-three`,
      `acme:auditor@acme.example:${KEY}-four:read`,
    ].join(','),
  );

  it('reads tenant:key, tenant:key:read, tenant:name:key and tenant:name:key:read', () => {
    expect(parsed.problems).toEqual([]);
    expect(parsed.records).toEqual([
      { tenant: 'acme', keyHash: HASH, access: 'read_write', source: 'STRATA_API_KEYS entry 1' },
      expect.objectContaining({ keyHash: hashApiKey(`${KEY}-two`), access: 'read_only' }),
      expect.objectContaining({
        name: 'billing-service',
        keyHash: hashApiKey(`${KEY}-three`),
        access: 'read_write',
      }),
      expect.objectContaining({
        name: 'auditor@acme.example',
        keyHash: hashApiKey(`${KEY}-four`),
        access: 'read_only',
      }),
    ]);
    expect(parsed.records[0]).not.toHaveProperty('name');
    expect(parsed.records[1]).not.toHaveProperty('name');
  });

  it('audits a named key by its name and an unnamed one by the start of its hash', () => {
    expect(parsed.records.map(actorOfKey)).toEqual([
      `key:${HASH.slice(0, 12)}`,
      `key:${hashApiKey(`${KEY}-two`).slice(0, 12)}`,
      'billing-service',
      'auditor@acme.example',
    ]);
  });

  it('reads three fields by the length of the last: a key is never shorter than 16 characters, a role always is', () => {
    const [asKey] = parseApiKeyPairs(`acme:read:${KEY}`).records;
    expect(asKey).toMatchObject({ name: 'read', keyHash: HASH, access: 'read_write' });
    const [asRole] = parseApiKeyPairs(`acme:${KEY}:read`).records;
    expect(asRole).toMatchObject({ keyHash: HASH, access: 'read_only' });
    expect(asRole).not.toHaveProperty('name');
  });

  it('reads the admin role, with a name or without', () => {
    const [named, bare] = parseApiKeyPairs(
      `acme:dpo:${KEY}:admin acme:${KEY.replace('a', 'b')}:admin`,
    ).records;
    expect(named).toMatchObject({ tenant: 'acme', name: 'dpo', access: 'admin' });
    expect(bare).toMatchObject({ tenant: 'acme', access: 'admin' });
  });
});

describe('given unusable STRATA_API_KEYS entries', () => {
  it.each([
    ['one field', KEY, /must be tenant:key, tenant:name:key, or either with :read or :admin after the key/],
    ['five fields', `acme:bot:${KEY}:read:more`, /must be tenant:key/],
    ['an empty name', `acme::${KEY}`, /must be tenant:key/],
    [
      'an unknown role after a name',
      `acme:bot:${KEY}:owner`,
      /the role 'owner' is not one of 'read', 'admin'/,
    ],
    [
      'a short last field',
      'acme:bot:short-secret',
      /the field after the key is not a role \('read', 'admin'\), and a key has at least 16/,
    ],
    ['a name with spaces or symbols', `acme:bot!:${KEY}`, /the key name 'bot!' must be 1-64 letters/],
    [
      "the engine's own actor as name",
      `acme:strata-engine:${KEY}`,
      /the key name 'strata-engine' is reserved/,
    ],
    ['anonymous as name', `acme:Anonymous:${KEY}`, /is reserved/],
    ['a short key with a name', 'acme:bot:0123456789abc:read', /the key of tenant 'acme' is shorter than 16/],
  ])('refuses %s, naming the entry and never quoting the key', (_case, entry, message) => {
    const parsed = parseApiKeyPairs(`acme:${KEY}-ok ${entry}`);
    expect(parsed.problems).toEqual([expect.stringMatching(/^STRATA_API_KEYS entry 2: /)]);
    expect(parsed.problems[0]).toMatch(message);
    expect(parsed.problems[0]).not.toContain(KEY);
    expect(parsed.problems[0]).not.toContain('short-secret');
    expect(parsed.problems[0]).not.toContain('0123456789abc');
  });
});

describe('given a file of hashed keys of every form', () => {
  const parsed = parseHashedKeyFile(
    [
      `acme:${HASH}`,
      `acme:${hashApiKey('b').toUpperCase()}:read`,
      `acme : deploy-bot : ${hashApiKey('c')}  # the deploy pipeline`,
      `acme:auditor:${hashApiKey('d')}:read`,
      `acme:auditor:${hashApiKey('e')}:owner`,
    ].join('\n'),
    'keys.txt',
  );

  it('reads the name and the role as STRATA_API_KEYS does', () => {
    expect(parsed.records).toEqual([
      expect.objectContaining({ tenant: 'acme', keyHash: HASH, access: 'read_write' }),
      expect.objectContaining({ keyHash: hashApiKey('b'), access: 'read_only' }),
      expect.objectContaining({ name: 'deploy-bot', keyHash: hashApiKey('c'), access: 'read_write' }),
      expect.objectContaining({ name: 'auditor', keyHash: hashApiKey('d'), access: 'read_only' }),
    ]);
    expect(parsed.records[0]).not.toHaveProperty('name');
    expect(parsed.problems).toEqual(["keys.txt line 5: the role 'owner' is not one of 'read', 'admin'"]);
  });
});
