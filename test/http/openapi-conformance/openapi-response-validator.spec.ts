import { apiDocument } from '../../../apps/engine/src/http/api-document';
import {
  OpenApiResponseValidator,
  type ObservedResponse,
  type OpenApiDescription,
} from './openapi-response-validator';

/** A small document: one session read with a referenced schema, and an erasure with no body. */
const document: OpenApiDescription = {
  paths: {
    '/sessions/{sessionId}': {
      get: {
        operationId: 'getSession',
        responses: {
          '200': {
            description: 'The session',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Session' } } },
          },
          '404': {
            description: 'Not found',
            content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
          },
        },
      },
      delete: { operationId: 'eraseSession', responses: { '204': { description: 'Erased' } } },
    },
    '/sessions/import': {
      post: { operationId: 'importSession', responses: { default: { description: 'Anything' } } },
    },
  },
  components: {
    schemas: {
      Session: {
        type: 'object',
        properties: { id: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } },
        required: ['id', 'createdAt'],
      },
      Problem: {
        type: 'object',
        properties: { code: { type: 'string' }, status: { type: 'integer' } },
        required: ['code', 'status'],
      },
    },
  },
};

const answered = (overrides: Partial<ObservedResponse>): ObservedResponse => ({
  method: 'GET',
  target: '/sessions/s1',
  status: 200,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify({ id: 's1', createdAt: '2026-12-06T10:00:00.000Z' }),
  ...overrides,
});

describe('an OpenAPI response validator', () => {
  const validator = new OpenApiResponseValidator(document);

  it('passes an answer the document describes, its media type parameters aside', () => {
    expect(validator.check(answered({}))).toBeUndefined();
    expect(validator.check(answered({ target: '/sessions/s1?format=llm' }))).toBeUndefined();
    expect(
      validator.check(
        answered({
          status: 404,
          contentType: 'application/problem+json',
          body: '{"code":"not_found","status":404}',
        }),
      ),
    ).toBeUndefined();
    expect(
      validator.check(answered({ method: 'DELETE', status: 204, contentType: undefined, body: '' })),
    ).toBeUndefined();
  });

  it('reports a status the operation does not list, naming the operation and the statuses it lists', () => {
    expect(validator.check(answered({ status: 410 }))).toBe(
      'getSession (GET /sessions/s1) answered 410, a status the document does not list (it lists 200, 404)',
    );
  });

  it('reports a media type the status does not list', () => {
    expect(validator.check(answered({ contentType: 'text/html; charset=utf-8', body: '<p>s1</p>' }))).toBe(
      'getSession (GET /sessions/s1) answered 200 as text/html, not one the document lists (application/json)',
    );
    expect(validator.check(answered({ contentType: undefined }))).toContain('as no content type');
  });

  it('reports a body missing a required field, through a reference to a component', () => {
    expect(validator.check(answered({ body: JSON.stringify({ id: 's1' }) }))).toBe(
      "getSession (GET /sessions/s1) answered 200 with a body the document's schema refuses: (the body) must have required property 'createdAt'",
    );
  });

  it('checks formats, and reports a JSON media type whose body is not JSON', () => {
    expect(
      validator.check(answered({ body: JSON.stringify({ id: 's1', createdAt: 'yesterday' }) })),
    ).toContain('/createdAt must match format "date-time"');
    expect(validator.check(answered({ body: 'not json' }))).toContain('with a body that is not JSON');
  });

  it('reports a body where the document describes none, and an operation it does not have', () => {
    expect(
      validator.check(answered({ method: 'DELETE', status: 204, contentType: 'text/plain', body: 'gone' })),
    ).toBe(
      'eraseSession (DELETE /sessions/s1) answered 204 with a body (text/plain) where the document describes none',
    );
    expect(validator.check(answered({ method: 'PUT' }))).toBe(
      'PUT /sessions/s1 answered 200: the document has no such operation',
    );
    expect(validator.check(answered({ target: '/nowhere' }))).toContain('the document has no such operation');
  });

  it('passes an unknown route only as the 404 problem the options describe', () => {
    const withRule = new OpenApiResponseValidator(document, {
      unknownRoutes: { status: 404, mediaType: 'application/problem+json', component: 'Problem' },
    });
    const unknown = answered({
      target: '/nowhere',
      status: 404,
      contentType: 'application/problem+json',
      body: '{"code":"not_found","status":404}',
    });
    expect(withRule.check(unknown)).toBeUndefined();
    expect(validator.check(unknown)).toBe('GET /nowhere answered 404: the document has no such operation');
    expect(withRule.check({ ...unknown, body: '{"status":404}' })).toBe(
      "GET /nowhere, an unknown route, answered 404 with a body Problem refuses: (the body) must have required property 'code'",
    );
    expect(withRule.check({ ...unknown, status: 200 })).toContain('the document has no such operation');
  });

  it('matches a literal path before a template, and takes `default` for a status not listed', () => {
    expect(
      validator.check(answered({ method: 'POST', target: '/sessions/import', status: 418, body: '' })),
    ).toBeUndefined();
    // no GET at the literal path: the template's GET answers, as a router would route it
    expect(validator.check(answered({ target: '/sessions/import', status: 410 }))).toContain(
      'getSession (GET /sessions/import) answered 410',
    );
  });

  it("compiles every response schema of the engine's own document", () => {
    const engineDocument = JSON.parse(JSON.stringify(apiDocument())) as OpenApiDescription;
    const engineValidator = new OpenApiResponseValidator(engineDocument);
    expect(engineValidator.compileEverySchema()).toBeGreaterThan(20);
    const problem = {
      type: 'about:blank',
      title: 'Not found',
      status: 404,
      detail: 'no session',
      code: 'not_found',
    };
    expect(
      engineValidator.check(
        answered({
          target: '/sessions/s1',
          status: 404,
          contentType: 'application/problem+json',
          body: JSON.stringify(problem),
        }),
      ),
    ).toBeUndefined();
    expect(
      engineValidator.check(
        answered({
          status: 404,
          contentType: 'application/problem+json',
          body: JSON.stringify({ ...problem, code: 'nope' }),
        }),
      ),
    ).toContain('/code must be equal to one of the allowed values');
  });
});
