// Named zod schemas of the HTTP API. The same schemas validate requests and become the
// OpenAPI components (zod 4's `z.toJSONSchema`), so the document cannot drift from the code.
// Request schemas are rendered as their input side, response schemas as their output side.
import { z } from 'zod';

export interface ApiSchemaMeta {
  readonly id: string;
  readonly description?: string;
}

export const requestSchemaRegistry = z.registry<ApiSchemaMeta>();
export const responseSchemaRegistry = z.registry<ApiSchemaMeta>();

/**
 * Adds `schema` to `registry` under `id`. Two schemas of one side under one name would leave the
 * document a single component for both (the second), so that is refused.
 */
function named<Schema extends z.ZodType>(
  registry: typeof requestSchemaRegistry,
  id: string,
  schema: Schema,
  description: string | undefined,
): Schema {
  const holder = registry._idmap.get(id);
  if (holder === schema) return schema;
  if (holder !== undefined) {
    throw new Error(`two ${registry === requestSchemaRegistry ? 'request' : 'response'} schemas named ${id}`);
  }
  registry.add(schema, { id, ...(description !== undefined ? { description } : {}) });
  return schema;
}

/** Names a schema read from clients (a body). */
export function requestSchema<Schema extends z.ZodType>(
  id: string,
  schema: Schema,
  description?: string,
): Schema {
  return named(requestSchemaRegistry, id, schema, description);
}

/** Names a schema the API answers with. */
export function responseSchema<Schema extends z.ZodType>(
  id: string,
  schema: Schema,
  description?: string,
): Schema {
  return named(responseSchemaRegistry, id, schema, description);
}

/** A decimal string standing for a bigint (revisions and global positions). */
export const decimalString = z.string().regex(/^\d+$/, 'must be a non-negative integer (decimal digits)');

/** `limit`, `offset` and `cursor` of paged lists (as query strings). */
export function pageQueryFields(maxLimit: number) {
  return {
    limit: z.coerce.number().int().min(1).max(maxLimit).optional().describe(`page size, 1 to ${maxLimit}`),
    offset: z.coerce.number().int().min(0).optional().describe('items to skip (not with cursor)'),
    cursor: z.string().min(1).optional().describe('nextCursor of the previous page (not with offset)'),
  };
}

export const booleanQuery = z
  .enum(['true', 'false'])
  .optional()
  .transform((value) => value === 'true');
