// The OpenAPI 3.1 document of the API, built from the operations' descriptions and the named
// zod schemas (components), with the problem responses of the closed set and, on every
// authenticated write, the optional `X-Strata-Actor` header the audit records and the refusals
// of write admission (429, 503 with `Retry-After`).
import { z } from 'zod';
import { ON_BEHALF_OF_MAX_LENGTH } from '../tenant.guard';
import { PROBLEM_CONTENT_TYPE } from '../problem/problem-details';
import { problemCodes, problemStatuses, problemTitles, type ProblemCode } from '../problem/api-errors';
import type { ApiOperation } from './api-operation';
import { requestSchemaRegistry, responseSchemaRegistry } from './api-schemas';

type JsonSchema = Record<string, unknown>;

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description: string;
    readonly license: { readonly name: string; readonly identifier: string };
  };
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes: Readonly<Record<string, unknown>>;
  };
  readonly security: readonly Readonly<Record<string, readonly string[]>>[];
  readonly tags: readonly { readonly name: string; readonly description: string }[];
}

const componentUri = (id: string): string => `#/components/schemas/${id}`;

const problemSchema: JsonSchema = {
  type: 'object',
  description:
    'Problem details (RFC 9457). `code` is stable; validation problems list `errors` as {path, message}.',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    code: { type: 'string', enum: [...problemCodes] },
    reason: {
      type: 'string',
      description:
        'The finer reason some problems carry. Conflicts (409): `leaf_conflict` (the leaf is not ' +
        '`expectedLeafId`: with `currentLeafId` and `currentRevision`), `tool_result_unpaired` (a ' +
        'tool result answers no call pending at its parent: with `toolCallId`, `entryId`, ' +
        '`parentId`), `lease_held` (another writer holds the lease, or the write carries no ' +
        '`leaseToken`: with `holder`, `expiresAt`), `lease_stale` (the `leaseToken` is not the ' +
        "session's current lease: a later one was taken, or it was released or expired), " +
        '`revision_conflict`, `idempotency_mismatch`, `already_exists`, `conflict`, …',
    },
    currentLeafId: {
      type: ['string', 'null'],
      description: '`leaf_conflict`: the leaf the session holds now (null: empty)',
    },
    currentRevision: {
      type: ['string', 'null'],
      description:
        "`leaf_conflict`: the revision of the session stream's last event, as it was read with the leaf",
    },
    toolCallId: {
      type: 'string',
      description: '`tool_result_unpaired`: the call id the refused tool result names',
    },
    holder: { type: 'string', description: '`lease_held`: who holds the lease' },
    expiresAt: {
      type: 'string',
      format: 'date-time',
      description: '`lease_held`: when the lease expires unless renewed',
    },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, message: { type: 'string' } },
        required: ['path', 'message'],
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
};

/**
 * A zod JSON Schema as the document holds it: without `$schema` (the document's dialect applies)
 * and without the `$id` zod gives a registered schema (`#/components/schemas/X`): an `$id` may
 * not be a fragment, and validators that honour it would resolve the document's references
 * against it. Components are reached by their JSON pointer.
 */
function withoutDialect(schema: JsonSchema): JsonSchema {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function componentSchemas(): Record<string, JsonSchema> {
  const options = { uri: componentUri, unrepresentable: 'any', reused: 'inline' } as const;
  const requests = z.toJSONSchema(requestSchemaRegistry, { ...options, io: 'input' }).schemas;
  const responses = z.toJSONSchema(responseSchemaRegistry, { ...options, io: 'output' }).schemas;
  const schemas: Record<string, JsonSchema> = { Problem: problemSchema };
  for (const [id, schema] of Object.entries({ ...requests, ...responses }))
    schemas[id] = withoutDialect(schema);
  return schemas;
}

function schemaFor(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const registry = io === 'input' ? requestSchemaRegistry : responseSchemaRegistry;
  const id = registry.get(schema)?.id;
  if (id !== undefined) return { $ref: componentUri(id) };
  return withoutDialect(z.toJSONSchema(schema, { io, unrepresentable: 'any' }));
}

/** Whether the operation writes for an authenticated caller (and so records its actor). */
function writesOnBehalf(operation: ApiOperation): boolean {
  return operation.public !== true && operation.method !== 'get';
}

const onBehalfOfHeader: NonNullable<ApiOperation['headers']> = {
  'X-Strata-Actor': {
    schema: z
      .string()
      .max(ON_BEHALF_OF_MAX_LENGTH)
      .regex(/^[\x20-\x7E]*$/),
    description:
      'Who the caller acts for (the end user behind a service), recorded as `onBehalfOf` in the ' +
      "metadata of every event the request writes, beside the API key's name (`actor`), never " +
      `instead of it. At most ${ON_BEHALF_OF_MAX_LENGTH} printable ASCII characters (percent-encode ` +
      'others); blank is none; anything else answers 400.',
  },
};

function parametersOf(operation: ApiOperation): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  for (const [name, schema] of Object.entries(operation.pathParameters ?? {})) {
    parameters.push({ name, in: 'path', required: true, schema: schemaFor(schema, 'input') });
  }
  for (const [name, schema] of Object.entries(operation.query?.shape ?? {})) {
    const field = schema as z.ZodType;
    const rendered = schemaFor(field, 'input');
    parameters.push({
      name,
      in: 'query',
      required: !field.safeParse(undefined).success,
      schema: rendered,
      ...(field.description !== undefined ? { description: field.description } : {}),
    });
  }
  const headers = { ...operation.headers, ...(writesOnBehalf(operation) ? onBehalfOfHeader : {}) };
  for (const [name, header] of Object.entries(headers)) {
    parameters.push({
      name,
      in: 'header',
      description: header.description,
      schema: schemaFor(header.schema, 'input'),
    });
  }
  return parameters;
}

/**
 * The problems every authenticated write may be answered with before its body is read (write
 * admission, docs/decisions/0009), with what they say there.
 */
const writeAdmissionProblems: Partial<Record<ProblemCode, string>> = {
  too_many_requests:
    "`reason: write_share_exceeded`: the writes of the caller's tenant in progress and waiting take " +
    'its whole share; answered before the body is read, with `Retry-After`',
  unavailable:
    '`reason: write_capacity_exhausted`: the writes in progress take the whole budget of the engine, ' +
    'answered before the body is read, with `Retry-After`; or the store or the read models cannot ' +
    'serve it right now',
};

const retryAfterHeader = {
  'Retry-After': {
    description: 'Seconds to wait before sending the request again',
    schema: { type: 'integer', minimum: 1 },
  },
};

function problemResponse(code: ProblemCode, writes: boolean): JsonSchema {
  const admission = writes ? writeAdmissionProblems[code] : undefined;
  return {
    description: admission !== undefined ? `${problemTitles[code]} (${admission})` : problemTitles[code],
    ...(admission !== undefined ? { headers: retryAfterHeader } : {}),
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: componentUri('Problem') } } },
  };
}

function operationObject(operation: ApiOperation): JsonSchema {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.schema !== undefined
        ? {
            content: {
              [response.mediaType ?? 'application/json']: { schema: schemaFor(response.schema, 'output') },
            },
          }
        : {}),
    };
  }
  const problems = new Set<ProblemCode>([...operation.problems, 'internal']);
  if (operation.public !== true) problems.add('unauthorized');
  if (operation.path.includes('{sessionId}') && problems.has('not_found')) problems.add('gone');
  const writes = writesOnBehalf(operation);
  if (writes) for (const code of Object.keys(writeAdmissionProblems)) problems.add(code as ProblemCode);
  for (const code of [...problems].sort((left, right) => problemStatuses[left] - problemStatuses[right])) {
    responses[String(problemStatuses[code])] = problemResponse(code, writes);
  }
  const body = operation.body;
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description !== undefined ? { description: operation.description } : {}),
    ...(operation.public === true ? { security: [] } : {}),
    parameters: parametersOf(operation),
    ...(body !== undefined
      ? {
          requestBody: {
            required: body.required ?? true,
            ...(body.description !== undefined ? { description: body.description } : {}),
            content: Object.fromEntries(
              (body.mediaTypes ?? ['application/json']).map((mediaType) => [
                mediaType,
                { schema: body.schema !== undefined ? schemaFor(body.schema, 'input') : { type: 'string' } },
              ]),
            ),
          },
        }
      : {}),
    responses,
  };
}

export interface DocumentInfo {
  readonly version: string;
  readonly tags: readonly { readonly name: string; readonly description: string }[];
}

export function buildOpenApiDocument(
  operations: readonly ApiOperation[],
  info: DocumentInfo,
): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const pathItem = (paths[operation.path] ??= {});
    if (pathItem[operation.method] !== undefined) {
      throw new Error(`two operations for ${operation.method.toUpperCase()} ${operation.path}`);
    }
    pathItem[operation.method] = operationObject(operation);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Strata',
      version: info.version,
      description:
        'Event-sourced session engine for LLM agents. Revisions and positions are decimal strings. ' +
        'Every session belongs to the tenant of the API key that started or imported it; another ' +
        "tenant's session answers 404. Every event a request writes records the API key's name as " +
        '`actor` (and `X-Strata-Actor` as `onBehalfOf`) in its sealed metadata.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'this engine (the document is served by the engine it describes)' }],
    paths,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    tags: info.tags,
  };
}
