// How each endpoint describes itself for the OpenAPI document: method, path, the zod schemas
// of what it reads and answers, and which problems of the closed set it may answer with.
import type { z } from 'zod';
import type { ProblemCode } from '../problem/api-errors';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface ApiBody {
  readonly schema?: z.ZodType;
  /** `application/json` by default. */
  readonly mediaTypes?: readonly string[];
  readonly description?: string;
  /** Whether a request must have a body; true by default. */
  readonly required?: boolean;
}

export interface ApiResponse {
  readonly description: string;
  readonly schema?: z.ZodType;
  /** `application/json` by default. */
  readonly mediaType?: string;
}

export interface ApiOperation {
  readonly method: HttpMethod;
  /** OpenAPI form: `/sessions/{sessionId}`. */
  readonly path: string;
  readonly operationId: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly pathParameters?: Readonly<Record<string, z.ZodType>>;
  readonly query?: z.ZodObject;
  readonly headers?: Readonly<Record<string, { readonly schema: z.ZodType; readonly description: string }>>;
  readonly body?: ApiBody;
  readonly responses: Readonly<Record<number, ApiResponse>>;
  /**
   * Problems besides `internal`. Authenticated operations add `unauthorized` themselves, and
   * operations on one session (a `{sessionId}` path that may answer `not_found`) add `gone`: an
   * erased session answers 410 `session_erased` with its erasure record.
   */
  readonly problems: readonly ProblemCode[];
  /** True for operations that need no API key (health, docs, metrics). */
  readonly public?: boolean;
}
