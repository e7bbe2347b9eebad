import { z } from 'zod';
import { apiDocument, apiOperations } from '../../http/api-document';
import { responseSchema } from './api-schemas';
import { problemStatuses } from '../problem/api-errors';

function references(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => references(item, found));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push(item);
      else references(item, found);
    }
  }
  return found;
}

describe('the OpenAPI document', () => {
  const document = apiDocument();

  it('is OpenAPI 3.1 with an operation for every described endpoint', () => {
    expect(document.openapi).toBe('3.1.0');
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(apiOperations.length);
    expect(document.paths['/sessions/{sessionId}/context']?.['get']).toMatchObject({
      operationId: 'getContext',
    });
  });

  it('names its licence and its server', () => {
    expect(document.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('lists 410 for every operation on one session an erasure can answer, and an erasure body as optional', () => {
    const operation = (path: string, method: string) =>
      (document.paths[path]?.[method] ?? {}) as {
        responses?: Record<string, unknown>;
        requestBody?: unknown;
      };
    const erasable = [
      ['/sessions/{sessionId}', 'get'],
      ['/sessions/{sessionId}/context', 'get'],
      ['/sessions/{sessionId}/tree', 'get'],
      ['/sessions/{sessionId}/entries', 'get'],
      ['/sessions/{sessionId}/export', 'get'],
      ['/sessions/{sessionId}/anchors', 'get'],
      ['/sessions/{sessionId}/events', 'get'],
      ['/sessions/{sessionId}/attempts', 'get'],
      ['/sessions/{sessionId}/entries', 'post'],
      ['/sessions/{sessionId}/labels', 'post'],
      ['/sessions/{sessionId}/compact', 'post'],
      ['/sessions/{sessionId}/navigate', 'post'],
      ['/sessions/{sessionId}/abort', 'post'],
      ['/events', 'get'],
    ] as const;
    for (const [path, method] of erasable) {
      expect([path, method, Object.keys(operation(path, method).responses ?? {})]).toEqual([
        path,
        method,
        expect.arrayContaining(['410']),
      ]);
    }
    expect(operation('/sessions/{sessionId}', 'delete').requestBody).toMatchObject({ required: false });
    expect(operation('/sessions/{sessionId}/entries', 'post').requestBody).toMatchObject({ required: true });
  });

  it('resolves every reference to a component schema', () => {
    const refs = references(document);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(document.components.schemas[ref.split('/').pop()!]).toBeDefined();
    }
  });

  it('names each component once: an entry of a page is a SessionEntry, one entry read alone a SessionEntryView', () => {
    const schemaOf = (path: string) =>
      JSON.stringify(
        (document.paths[path]?.['get'] as { responses: Record<string, unknown> }).responses['200'],
      );
    expect(schemaOf('/sessions/{sessionId}/entries')).toContain('#/components/schemas/SessionEntries');
    expect(schemaOf('/sessions/{sessionId}/entries/{entryId}')).toContain(
      '#/components/schemas/SessionEntryView',
    );
    expect(document.components.schemas['SessionEntries']?.['properties']).toMatchObject({
      items: { items: { $ref: '#/components/schemas/SessionEntry' } },
    });
    expect(JSON.stringify(document.components.schemas['SessionEntry'])).not.toContain('onCurrentPath');
    expect(document.components.schemas['SessionEntryView']?.['required']).toContain('onCurrentPath');
    expect(() => responseSchema('SessionEntry', z.object({ other: z.string() }))).toThrow(
      'two response schemas named SessionEntry',
    );
  });

  it('gives no component an $id (a fragment there would move where its references resolve)', () => {
    expect(JSON.stringify(document.components.schemas)).not.toContain('"$id"');
  });

  it('generates request bodies from the zod schemas (input side: defaults optional)', () => {
    const append = document.components.schemas['AppendEntriesRequest'] as {
      required: string[];
      properties: object;
    };
    expect(append.required).toEqual(['entries']);
    expect(Object.keys(append.properties)).toEqual([
      'entries',
      'expectedRevision',
      'expectedLeafId',
      'idempotencyKey',
      'leaseToken',
    ]);
  });

  it('lists the writer lease: its endpoints, the token on every write, and the fields of its problems', () => {
    expect(document.paths['/sessions/{sessionId}/lease']).toMatchObject({
      post: { operationId: 'takeLease', responses: { '200': {}, '400': {}, '409': {} } },
      delete: { operationId: 'releaseLease', responses: { '204': {}, '409': {} } },
    });
    for (const request of ['AppendEntriesRequest', 'SetLabelRequest', 'CompactRequest', 'NavigateRequest']) {
      const schema = document.components.schemas[request] as { properties: object };
      expect([request, Object.keys(schema.properties)]).toEqual([
        request,
        expect.arrayContaining(['leaseToken']),
      ]);
    }
    const problem = document.components.schemas['Problem'] as { properties: object };
    expect(Object.keys(problem.properties)).toEqual(
      expect.arrayContaining([
        'reason',
        'currentLeafId',
        'currentRevision',
        'toolCallId',
        'holder',
        'expiresAt',
      ]),
    );
  });

  it('offers X-Strata-Actor on every authenticated write, and on no read', () => {
    const parameterNames = (method: string, path: string): string[] =>
      (
        (document.paths[path]?.[method] as { parameters: { name: string; in: string }[] }).parameters ?? []
      ).flatMap((parameter) => (parameter.in === 'header' ? [parameter.name] : []));
    for (const path of [
      '/sessions',
      '/sessions/{sessionId}/entries',
      '/sessions/{sessionId}/compact',
      '/sessions/import',
    ])
      expect(parameterNames('post', path)).toContain('X-Strata-Actor');
    expect(parameterNames('get', '/sessions/{sessionId}')).not.toContain('X-Strata-Actor');
  });

  it('lists the refusals of write admission, with Retry-After, on every authenticated write and on no read', () => {
    const writes = apiOperations.filter(
      (operation) => operation.method !== 'get' && operation.public !== true,
    );
    expect(writes.map((operation) => operation.operationId)).toEqual(
      expect.arrayContaining(['startSession', 'appendEntries', 'importSession', 'eraseSession']),
    );
    for (const operation of writes) {
      const responses = (
        document.paths[operation.path]?.[operation.method] as {
          responses: Record<string, { description: string; headers?: object }>;
        }
      ).responses;
      expect([operation.operationId, responses['429']?.description]).toEqual([
        operation.operationId,
        expect.stringContaining('write_share_exceeded'),
      ]);
      expect(responses['503']?.description).toContain('write_capacity_exhausted');
      expect(responses['429']?.headers).toHaveProperty(['Retry-After']);
      expect(responses['503']?.headers).toHaveProperty(['Retry-After']);
    }
    const read = document.paths['/sessions/{sessionId}']?.['get'] as { responses: Record<string, unknown> };
    expect(read.responses).not.toHaveProperty(['429']);
  });

  it('lists the problems of each operation as problem+json, and needs no key only where public', () => {
    const get = document.paths['/sessions/{sessionId}']?.['get'] as {
      responses: Record<string, { content?: object }>;
    };
    expect(Object.keys(get.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '404', String(problemStatuses.internal)]),
    );
    expect(get.responses['404']?.content).toHaveProperty(['application/problem+json']);
    expect(document.paths['/health']?.['get']).toMatchObject({ security: [] });
    expect(document.paths['/sessions']?.['get']).not.toHaveProperty('security');
  });
});
