// `GET /sessions?q=`: the tenant's sessions whose entries hold every word of `q` (the search
// read model), or whose title or working directory holds it (the catalog), latest activity
// first, paged by offset. Bounded: the search looks at MAX_SEARCH_ENTRIES matching entries and
// MAX_SEARCH_SESSIONS sessions, the catalog at one page of MAX_SESSION_PAGE; `truncated` says
// that a bound was reached and more sessions may match.
import {
  compareCatalogSessions,
  searchTerms,
  type CatalogSession,
  type SearchHit,
} from '@strata/projections';
import { z } from 'zod';
import type { ReadModels } from '../../read-side/read-models.service';
import { invalidInput } from '../../api/problem/api-errors';
import { responseSchema } from '../../api/openapi/api-schemas';
import { MAX_SESSION_PAGE } from '../../api/sessions/session-requests.schemas';
import { sessionSummaryResponse } from '../../api/sessions/session-responses.schemas';
import { catalogSessionView } from './session-views.mapper';

export interface SessionSearchQuery {
  readonly q: string;
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
  readonly cursor?: string | undefined;
  readonly text?: string | undefined;
}

export const sessionSearchResponse = responseSchema(
  'SessionSearchResults',
  z.object({
    items: z.array(
      sessionSummaryResponse.extend({
        match: z
          .object({
            entryId: z.string().describe('the newest entry that holds every word'),
            excerpt: z.string().describe('a few words around the match'),
            matchingEntries: z
              .number()
              .int()
              .describe('entries of the session that matched, of those looked at'),
          })
          .nullable()
          .describe('null when only the title or working directory matched'),
      }),
    ),
    total: z.number().int().describe('sessions found (within the bounds)'),
    nextCursor: z.null(),
    nextOffset: z.number().int().nullable().describe('the offset of the next page; null on the last'),
    truncated: z.boolean().describe('a bound was reached: more sessions may match; refine the words'),
  }),
  'Sessions matching a search inside their entries, or in their title or working directory.',
);

export async function searchSessions(readModels: ReadModels, tenant: string, query: SessionSearchQuery) {
  if (query.cursor !== undefined || query.text !== undefined)
    throw invalidInput('a search pages by offset: give neither cursor nor text with q', [
      { path: 'query.q', message: 'not with cursor or text' },
    ]);
  const { catalog, search } = readModels.projections;
  const terms = searchTerms(query.q);
  const byTitle = await catalog.listSessions({ tenant, text: query.q, limit: MAX_SESSION_PAGE });
  const found = terms !== undefined ? await search.search(tenant, terms) : { hits: [], truncated: false };
  const sessions = new Map<string, CatalogSession>(
    byTitle.items.map((session) => [session.sessionId, session]),
  );
  const hits = new Map<string, SearchHit>();
  for (const hit of found.hits) {
    hits.set(hit.sessionId, hit);
    if (sessions.has(hit.sessionId)) continue;
    // Only sessions the catalog holds for this tenant are answered (a forgotten session is not).
    const session = await catalog.findSession(tenant, hit.sessionId);
    if (session !== undefined) sessions.set(hit.sessionId, session);
  }
  const ordered = [...sessions.values()].sort(compareCatalogSessions);
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const page = ordered.slice(offset, offset + limit);
  const items = [];
  for (const session of page) {
    const hit = hits.get(session.sessionId);
    items.push({
      ...catalogSessionView(session),
      match:
        hit === undefined || terms === undefined
          ? null
          : {
              entryId: hit.entryId,
              excerpt: await search.excerpt(hit.rowId, terms),
              matchingEntries: hit.matchingEntries,
            },
    });
  }
  return {
    items,
    total: ordered.length,
    nextCursor: null,
    nextOffset: offset + limit < ordered.length ? offset + limit : null,
    truncated: found.truncated || byTitle.nextCursor !== null,
  };
}
