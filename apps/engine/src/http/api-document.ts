// The API's OpenAPI document: every operation of every controller, in the order of the tags.
import { z } from 'zod';
import { anchorOperations } from './anchors/anchors.controller';
import { eventStreamOperations } from './events/event-stream.controller';
import { metricsOperations } from './metrics/metrics.controller';
import { healthOperations } from './health/readiness.controller';
import type { ApiOperation } from '../api/openapi/api-operation';
import { buildOpenApiDocument, type OpenApiDocument } from '../api/openapi/openapi-document';
import { startSessionOperations } from '../sessions/start-session/start-session.controller';
import { appendEntriesOperations } from '../sessions/append-entries/append-entries.controller';
import { compactSessionOperations } from '../sessions/compact-session/compact-session.controller';
import { navigateSessionOperations } from '../sessions/navigate-session/navigate-session.controller';
import { abortCompactionOperations } from '../sessions/abort-compaction/abort-compaction.controller';
import { setLabelOperations } from '../sessions/set-label/set-label.controller';
import { sessionLeaseOperations } from '../sessions/session-lease/session-lease.controller';
import { sessionEventOperations } from '../sessions/read-sessions/session-events.controller';
import { sessionFileOperations } from '../sessions/session-files/session-files.controller';
import { sessionErasureOperations } from '../sessions/erase-session/session-erasures.controller';
import { sessionQueryOperations } from '../sessions/read-sessions/session-queries.controller';
import { sessionEntryOperations } from '../sessions/read-sessions/session-entry.controller';
import { ENGINE_VERSION } from '../shared/engine-version';

const docsOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/docs',
    operationId: 'docsPage',
    tag: 'operations',
    summary: 'This documentation (a self-contained HTML page)',
    responses: { 200: { description: 'The page', schema: z.string(), mediaType: 'text/html' } },
    problems: [],
    public: true,
  },
  {
    method: 'get',
    path: '/docs/openapi.json',
    operationId: 'openApiDocument',
    tag: 'operations',
    summary: 'The OpenAPI 3.1 document',
    responses: { 200: { description: 'The document', schema: z.looseObject({ openapi: z.string() }) } },
    problems: [],
    public: true,
  },
];

export const apiOperations: readonly ApiOperation[] = [
  ...startSessionOperations,
  ...appendEntriesOperations,
  ...compactSessionOperations,
  ...navigateSessionOperations,
  ...abortCompactionOperations,
  ...setLabelOperations,
  ...sessionLeaseOperations,
  ...sessionQueryOperations,
  ...sessionEntryOperations,
  ...sessionFileOperations,
  ...sessionErasureOperations,
  ...anchorOperations,
  ...sessionEventOperations,
  ...eventStreamOperations,
  ...healthOperations,
  ...metricsOperations,
  ...docsOperations,
];

const tags = [
  {
    name: 'sessions',
    description:
      'Start sessions, append entries, read contexts, trees and entries, compact, navigate, label.',
  },
  { name: 'files', description: 'pi session files (JSON Lines) in and out.' },
  { name: 'events', description: 'The live stream of session events (server-sent events).' },
  { name: 'audit', description: 'Compaction and branch-summary attempts across sessions.' },
  { name: 'integrity', description: 'Hash-chain verification of session histories.' },
  { name: 'operations', description: 'Health, readiness, metrics and this documentation.' },
];

export function apiDocument(): OpenApiDocument {
  return buildOpenApiDocument(apiOperations, { version: ENGINE_VERSION, tags });
}
