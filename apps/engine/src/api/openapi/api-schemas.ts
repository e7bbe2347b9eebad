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

/** Names a schema read from clients (a body). */
export function requestSchema<Schema extends z.ZodType>(
  id: string,
  schema: Schema,
  description?: string,
): Schema {
  requestSchemaRegistry.add(schema, { id, ...(description !== undefined ? { description } : {}) });
  return schema;
}

/** Names a schema the API answers with. */
export function responseSchema<Schema extends z.ZodType>(
  id: string,
  schema: Schema,
  description?: string,
): Schema {
  responseSchemaRegistry.add(schema, { id, ...(description !== undefined ? { description } : {}) });
  return schema;
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
