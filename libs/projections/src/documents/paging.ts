// Paging shared by the catalog and audit queries: a limit with either an offset or an opaque
// cursor (the sort key of the last item returned). Cursors come back from clients, so they
// are checked with zod like any other outside input.
import { z } from 'zod';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 500;

export interface PageRequest {
  /** 1…500; 50 by default. */
  readonly limit?: number;
  /** Items to skip; not together with `cursor`. */
  readonly offset?: number;
  /** `nextCursor` of the previous page. */
  readonly cursor?: string;
}

export interface Page<Item> {
  readonly items: readonly Item[];
  /** Items matching the filters, whatever the page. */
  readonly total: number;
  /** Pass it as `cursor` for the next page; null on the last page. */
  readonly nextCursor: string | null;
}

/** A query the projections cannot answer as asked (bad limit, offset or cursor). */
export class InvalidProjectionQueryError extends Error {
  override readonly name = 'InvalidProjectionQueryError';
}

export interface ResolvedPage {
  readonly limit: number;
  readonly offset: number;
}

export function resolvePage(request: PageRequest): ResolvedPage {
  const limit = request.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_LIMIT) {
    throw new InvalidProjectionQueryError(
      `limit must be an integer from 1 to ${MAX_PAGE_LIMIT}, not ${limit}`,
    );
  }
  const offset = request.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new InvalidProjectionQueryError(`offset must be a non-negative integer, not ${offset}`);
  }
  if (request.cursor !== undefined && request.offset !== undefined) {
    throw new InvalidProjectionQueryError('give either an offset or a cursor, not both');
  }
  return { limit, offset };
}

export function encodeCursor(key: readonly string[]): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** The sort key inside a cursor; throws `InvalidProjectionQueryError` for anything else. */
export function decodeCursor<Key extends readonly string[]>(cursor: string, schema: z.ZodType<Key>): Key {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidProjectionQueryError('the cursor is not one this service issued');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidProjectionQueryError('the cursor is not one this service issued');
  return parsed.data;
}

/**
 * A page from up to `limit + 1` items that follow the offset or cursor in sort order: the
 * extra item only tells that there is a next page.
 */
export function finishPage<Item>(
  itemsAndOneMore: readonly Item[],
  total: number,
  limit: number,
  cursorOf: (item: Item) => string,
): Page<Item> {
  const items = itemsAndOneMore.slice(0, limit);
  const last = items[items.length - 1];
  const more = itemsAndOneMore.length > limit;
  return { items, total, nextCursor: more && last !== undefined ? cursorOf(last) : null };
}
