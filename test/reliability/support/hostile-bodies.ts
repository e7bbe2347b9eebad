// Generators of hostile HTTP request bodies for the start and append endpoints: a valid body
// damaged by one family of mutation (not JSON, deep nesting, wrong types, invalid UTF-8, huge,
// unknown keys, hostile entries, wrong media type, random JSON). Bodies are bytes, since
// invalid UTF-8 only exists as bytes.
import fc from 'fast-check';
import type { SessionEntry } from '@strata/session';
import { generatedSessionArbitrary } from '@strata/testing';
import { hostileSessionFileArbitrary } from './hostile-session-files';

export const bodyFamilies = [
  'not-json',
  'deep-nesting',
  'wrong-type',
  'invalid-utf8',
  'huge-payload',
  'unknown-keys',
  'hostile-entries',
  'media-type',
  'random-json',
] as const;

export type BodyFamily = (typeof bodyFamilies)[number];

export interface HostileBody {
  readonly family: BodyFamily;
  readonly bytes: Buffer;
  /** The Content-Type header to send (none when undefined). */
  readonly contentType: string | undefined;
}

const JSON_TYPE = 'application/json';
// Integers spread positions evenly (a generated double clusters near 0 and 1).
const fraction = fc.integer({ min: 0, max: 9_999 }).map((value) => value / 10_000);

const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 6 }),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);

const invalidSequences: readonly (readonly number[])[] = [
  [0xff],
  [0xc3],
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0x80],
];

/** The value as a JSON body (an empty object when the value nests too deep to write). */
function jsonBody(value: unknown, family: BodyFamily): HostileBody {
  let text: string;
  try {
    text = JSON.stringify(value);
  } catch {
    text = '{}';
  }
  return { family, bytes: Buffer.from(text, 'utf8'), contentType: JSON_TYPE };
}

/** A valid body as JSON text, split open at a string value so something can be put inside it. */
function withInsideFirstString(valid: unknown, insert: Buffer, where: number): Buffer {
  const text = Buffer.from(JSON.stringify(valid), 'utf8');
  const quotes: number[] = [];
  text.forEach((byte, index) => {
    if (byte === 0x22) quotes.push(index);
  });
  const at = (quotes[Math.floor(where * quotes.length)] ?? 0) + 1;
  return Buffer.concat([text.subarray(0, at), insert, text.subarray(at)]);
}

function nestedText(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

/** Mutations of any valid body; `fields` are the body's own keys (for wrong types). */
function mutations(
  valid: fc.Arbitrary<Record<string, unknown>>,
  fields: readonly string[],
): fc.Arbitrary<HostileBody> {
  return fc.oneof(
    fc
      .record({
        body: valid,
        cut: fraction,
        text: fc.string({ unit: 'binary', maxLength: 40 }),
        raw: fc.boolean(),
      })
      .map(({ body, cut, text, raw }): HostileBody => {
        const json = JSON.stringify(body);
        const bytes = raw
          ? Buffer.from(text, 'utf8')
          : Buffer.from(json.slice(0, Math.floor(cut * json.length)));
        return { family: 'not-json', bytes, contentType: JSON_TYPE };
      }),
    fc
      .record({ body: valid, depth: fc.integer({ min: 600, max: 30_000 }), whole: fc.boolean() })
      .map(({ body, depth, whole }): HostileBody => {
        const json = JSON.stringify(body);
        const text = whole
          ? nestedText(depth)
          : `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"nested":${nestedText(depth)}}`;
        return { family: 'deep-nesting', bytes: Buffer.from(text), contentType: JSON_TYPE };
      }),
    fc
      .record({ body: valid, field: fc.constantFrom(...fields), value: wrongValue })
      .map(({ body, field, value }) => jsonBody({ ...body, [field]: value }, 'wrong-type')),
    fc
      .record({ body: valid, sequence: fc.constantFrom(...invalidSequences), where: fraction })
      .map(({ body, sequence, where }): HostileBody => ({
        family: 'invalid-utf8',
        bytes: withInsideFirstString(body, Buffer.from(sequence), where),
        contentType: JSON_TYPE,
      })),
    fc
      .record({ body: valid, size: fc.integer({ min: 200_000, max: 2_500_000 }), where: fraction })
      .map(({ body, size, where }): HostileBody => ({
        family: 'huge-payload',
        bytes: withInsideFirstString(body, Buffer.alloc(size, 0x61), where),
        contentType: JSON_TYPE,
      })),
    fc
      .record({
        body: valid,
        key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'extra'), fc.string({ maxLength: 6 })),
      })
      .map(({ body, key }): HostileBody => {
        const json = JSON.stringify(body);
        const member = `${JSON.stringify(key)}:{"polluted":"yes"}`;
        const text = `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}${member}}`;
        return { family: 'unknown-keys', bytes: Buffer.from(text), contentType: JSON_TYPE };
      }),
    fc
      .record({
        body: valid,
        contentType: fc.constantFrom(
          undefined,
          'text/plain',
          'application/xml',
          'multipart/form-data',
          'application/x-ndjson',
        ),
      })
      .map(({ body, contentType }): HostileBody => ({
        family: 'media-type',
        bytes: Buffer.from(JSON.stringify(body)),
        contentType,
      })),
    fc.jsonValue({ maxDepth: 4 }).map((value) => jsonBody(value, 'random-json')),
  );
}

/** Bodies for POST /sessions. */
export function hostileStartBodyArbitrary(): fc.Arbitrary<HostileBody> {
  const valid = fc.record(
    {
      sessionId: fc.uuid(),
      cwd: fc.string({ minLength: 1, maxLength: 20 }),
      title: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: ['cwd'] },
  );
  return mutations(valid, ['sessionId', 'cwd', 'title', 'parentSession']);
}

/** Entries of a hostile session file that parse as JSON objects (whatever else is wrong with them). */
const hostileEntries: fc.Arbitrary<unknown[]> = hostileSessionFileArbitrary({ withoutHuge: true }).map(
  (file) =>
    file.lines.slice(1).flatMap((line) => {
      if (typeof line !== 'string') return [];
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        return [];
      }
    }),
);

/** An append of one custom entry whose data nests `depth` levels (inside the entry, past the schema). */
const deepEntryBody: fc.Arbitrary<HostileBody> = fc
  .record({ depth: fc.integer({ min: 400, max: 30_000 }), id: fc.uuid() })
  .map(({ depth, id }): HostileBody => {
    const entry = JSON.stringify({
      type: 'custom',
      id,
      parentId: null,
      timestamp: '2026-01-01T00:00:00.000Z',
      customType: 'fuzz',
    });
    const text = `{"entries":[${entry.slice(0, -1)},"data":${nestedText(depth)}}]}`;
    return { family: 'deep-nesting', bytes: Buffer.from(text), contentType: JSON_TYPE };
  });

/** Bodies for POST /sessions/{id}/entries. */
export function hostileAppendBodyArbitrary(): fc.Arbitrary<HostileBody> {
  const valid = generatedSessionArbitrary({ maxEntries: 6, maxSteps: 2, images: false }).map(
    (session): Record<string, unknown> => ({ entries: [...session.entries] as SessionEntry[] }),
  );
  return fc.oneof(
    { arbitrary: deepEntryBody, weight: 1 },
    {
      arbitrary: mutations(valid, ['entries', 'expectedRevision', 'expectedLeafId', 'idempotencyKey']),
      weight: 4,
    },
    {
      arbitrary: hostileEntries.map((entries) => jsonBody({ entries }, 'hostile-entries')),
      weight: 1,
    },
  );
}
