// What the sessions endpoints answer, as zod schemas: they document the API (OpenAPI) and the
// end-to-end tests check real answers against them. Revisions and positions are decimal strings.
import { storedAuditAttemptSchema, storedCatalogSessionSchema } from '@strata/projections';
import {
  attemptErrorSchema,
  branchSummaryEntrySchema,
  compactionEntrySchema,
  compactionTriggers,
  labelEntrySchema,
  thinkingLevelSchema,
  usageSchema,
} from '@strata/session';
import { z } from 'zod';
import { decimalString, responseSchema } from '../openapi/api-schemas';
import { recordedSessionEntry, recordedSessionHeader } from './session-requests.schemas';
import { compactionEnding, compactionReport, contextRepairs } from './session-visibility.schemas';

const revision = decimalString.nullable();

/** A stream revision as the API answers it: a decimal string, or null before the first event. */
export const revisionText = (revision: bigint | null): string | null =>
  revision === null ? null : revision.toString();
const trigger = z.enum(compactionTriggers);

export const sessionSummaryResponse = responseSchema(
  'SessionSummary',
  storedCatalogSessionSchema.extend({ position: decimalString }),
  'A session as the sessions list shows it.',
);

export const sessionListResponse = responseSchema(
  'SessionList',
  z.object({
    items: z.array(sessionSummaryResponse),
    total: z.number().int(),
    nextCursor: z.string().nullable(),
  }),
);

export const sessionDetailResponse = responseSchema(
  'SessionDetail',
  storedCatalogSessionSchema.extend({
    header: recordedSessionHeader,
    labels: z.record(z.string(), z.string()),
    revision: decimalString,
    position: decimalString,
  }),
);

export const startSessionResponse = responseSchema(
  'StartSessionResponse',
  z.object({ sessionId: z.string(), header: recordedSessionHeader, revision, alreadyStarted: z.boolean() }),
);

export const appendEntriesResponse = responseSchema(
  'AppendEntriesResponse',
  z.object({
    sessionId: z.string(),
    entryIds: z.array(z.string()),
    leafId: z.string().nullable(),
    revision,
    alreadyAppended: z.boolean(),
    compaction: z
      .object({ attemptId: z.string(), trigger: z.enum(['threshold', 'overflow']), ...compactionEnding })
      .nullable()
      .describe(
        'the automatic compaction this append asked for (null: none), and how it has ended so far (usually ' +
          'still open: `outcome: null`); wait for it with `GET /sessions/{id}/context?waitForCompaction=<ms>` ' +
          'before the next append',
      ),
  }),
);

export const contextResponse = responseSchema(
  'SessionContext',
  z.object({
    sessionId: z.string(),
    format: z.enum(['agent', 'llm']),
    leafId: z.string().nullable(),
    compactionId: z.string().nullable(),
    messages: z.array(z.looseObject({ role: z.string() })),
    entryIds: z.array(z.string().nullable()).describe('the entry behind each agent message'),
    thinkingLevel: thinkingLevelSchema,
    models: z.record(z.string(), z.string()),
    tokens: z.number().int(),
    messageTokens: z.array(z.number().int()),
    tokenCounter: z.string(),
    revision: decimalString,
    position: decimalString,
    asOf: decimalString.nullable(),
    repairs: contextRepairs,
    compactionWait: z
      .object({
        outcome: z
          .enum(['settled', 'timed_out'])
          .describe(
            '`settled`: no compaction attempt is open and the engine has reacted to every event of the ' +
              'session; `timed_out`: the wait ended first, and the context may be compacted shortly',
          ),
        waitedMs: z.number().int(),
        attemptIds: z
          .array(z.string())
          .describe('the compaction attempts seen open while waiting; when timed out, those still open'),
        attempts: z
          .array(compactionReport)
          .describe(
            'how recent compaction attempts ended, in start order: every attempt open or started while ' +
              "waiting, and those prepared at the session's newest message (or after it), which may have " +
              'ended before the wait began',
          ),
      })
      .optional()
      .describe('how the wait asked for with `waitForCompaction` ended (only then present)'),
  }),
  'The context built for a leaf; `format=llm` converts the messages for a provider.',
);

const tokenCount = z.number().int().nonnegative();

export const contextSizesResponse = responseSchema(
  'ContextSizes',
  z.object({
    sessionId: z.string(),
    turns: z
      .array(
        z.object({
          entryId: z.string(),
          index: z.number().int().describe("the entry's index in append order"),
          timestamp: z.string(),
          model: z.string().describe('`provider/model` of the answer'),
          stopReason: z.string(),
          contextTokens: tokenCount.describe(
            "the context as the answer's usage reports it: totalTokens, else input + output + cache reads and writes",
          ),
          contextWindow: tokenCount.describe("the answering model's window (`models` settings)"),
          reserveTokens: tokenCount.describe('`compaction.reserveTokens` in force when it was appended'),
          threshold: z.number().int().describe('window − reserve: a measured context above it is compacted'),
        }),
      )
      .describe('every assistant answer whose usage reports a context, in append order (every branch)'),
    marks: z
      .array(
        z.object({
          entryId: z.string(),
          index: z.number().int(),
          timestamp: z.string(),
          type: z.enum(['compaction', 'branch_summary']),
          turn: z.number().int().describe('turns appended before it'),
          tokensBefore: tokenCount.nullable().describe("a compaction's recorded tokens before"),
        }),
      )
      .describe('every compaction and branch-summary entry, in append order'),
    revision: decimalString,
    position: decimalString,
  }),
  "A session's context size at each turn against the model's window and the compaction threshold.",
);

export const treeResponse = responseSchema(
  'SessionTree',
  z.object({
    sessionId: z.string(),
    header: recordedSessionHeader,
    leafId: z.string().nullable(),
    rootIds: z.array(z.string()),
    nodes: z.array(
      z.object({
        id: z.string(),
        parentId: z.string().nullable(),
        type: z.string(),
        timestamp: z.string(),
        label: z.string().nullable(),
        childIds: z.array(z.string()),
      }),
    ),
    revision: decimalString,
    position: decimalString,
  }),
);

export const entriesResponse = responseSchema(
  'SessionEntries',
  z.object({
    sessionId: z.string(),
    items: z.array(recordedSessionEntry),
    total: z.number().int(),
    offset: z.number().int(),
    limit: z.number().int(),
    leafId: z.string().nullable(),
  }),
);

const outcomeBase = { sessionId: z.string(), attemptId: z.string(), trigger, redelivered: z.boolean() };

export const compactionResponse = responseSchema(
  'CompactionResult',
  z.discriminatedUnion('outcome', [
    z.object({
      ...outcomeBase,
      outcome: z.literal('completed'),
      entry: compactionEntrySchema,
      fromExtension: z.boolean(),
      model: z.string().optional(),
      usage: usageSchema.optional(),
      durationMs: z.number(),
      tokensBefore: z.number(),
      estimatedTokensAfter: z.number(),
    }),
    z.object({ ...outcomeBase, outcome: z.literal('skipped'), reason: z.string() }),
    z.object({ ...outcomeBase, outcome: z.literal('cancelled'), reason: z.string() }),
    z.object({ ...outcomeBase, outcome: z.literal('failed'), error: attemptErrorSchema }),
  ]),
  'Exactly one terminal outcome; a failed summariser is an outcome, not an HTTP error.',
);

const navigationBase = {
  sessionId: z.string(),
  targetId: z.string(),
  oldLeafId: z.string().nullable(),
  leafId: z.string().nullable(),
};

export const navigationResponse = responseSchema(
  'NavigationResult',
  z.discriminatedUnion('outcome', [
    z.object({
      ...navigationBase,
      outcome: z.literal('navigated'),
      editorText: z.string().optional(),
      summary: z
        .object({
          attemptId: z.string(),
          entry: branchSummaryEntrySchema,
          fromExtension: z.boolean(),
          model: z.string().optional(),
          usage: usageSchema.optional(),
        })
        .optional(),
      summaryDeclined: z.enum(['disabled', 'nothing_to_summarize']).optional(),
      redelivered: z.boolean().optional(),
    }),
    z.object({ ...navigationBase, outcome: z.literal('unchanged') }),
    z.object({
      ...navigationBase,
      outcome: z.literal('cancelled'),
      reason: z.string(),
      attemptId: z.string().optional(),
    }),
    z.object({ ...navigationBase, outcome: z.literal('skipped'), reason: z.string(), attemptId: z.string() }),
    z.object({
      ...navigationBase,
      outcome: z.literal('failed'),
      error: attemptErrorSchema,
      attemptId: z.string(),
    }),
  ]),
);

export const abortResponse = responseSchema(
  'AbortResult',
  z.object({ sessionId: z.string(), abortedAttemptIds: z.array(z.string()) }),
);

export const setLabelResponse = responseSchema(
  'SetLabelResult',
  z.object({ sessionId: z.string(), entry: labelEntrySchema, revision, alreadySet: z.boolean() }),
);

const fileProblem = z.object({ line: z.number().int(), code: z.string(), reason: z.string() });

export const importResponse = responseSchema(
  'ImportReport',
  z.object({
    sessionId: z.string(),
    outcome: z
      .enum(['imported', 'appended', 'unchanged'])
      .describe(
        'imported: a new session; appended: the session held the first entries of the file, the rest were appended; unchanged: it held them all',
      ),
    entryCount: z.number().int().describe("the file's entries (for a part: up to its end)"),
    appended: z.number().int().describe('entries appended by this import'),
    eventsWritten: z.number().int(),
    revision: decimalString,
    sourceVersion: z.number().int(),
    migrated: z.boolean(),
    skipped: z.array(fileProblem),
    repaired: z.array(fileProblem),
    format: z
      .enum(['pi', 'claude-code', 'codex'])
      .optional()
      .describe('the format the file was read in, for a converted Claude Code or Codex transcript'),
  }),
);

const chainBreak = z.object({
  revision: decimalString,
  eventId: z.string(),
  reason: z.enum([
    'missing_seal',
    'revision_gap',
    'previous_hash_mismatch',
    'hash_mismatch',
    'time_mismatch',
    'time_backwards',
  ]),
});

const integrityFinding = z.object({
  kind: z
    .enum(['chain_broken', 'tail_missing', 'retention_metadata', 'anchor_not_reached', 'anchor_mismatch'])
    .describe(
      '`chain_broken`: an event was altered, removed or reordered; `tail_missing`: the store records ' +
        'more events than the chain holds; `retention_metadata`: stream metadata hides events; ' +
        '`anchor_not_reached`: the stream is shorter than a signed anchor; `anchor_mismatch`: the ' +
        "chain's hash at an anchor's revision differs",
    ),
  message: z.string(),
});

const refusedAnchor = z.object({
  origin: z.string().describe('where the anchor was read (`anchor log #n`)'),
  reason: z.enum(['bad_signature', 'unknown_key', 'invalid']),
  message: z.string(),
});

const erasureView = z.object({
  streamId: z.string(),
  erasedAt: z.string(),
  actor: z.string(),
  reason: z.string(),
  eventCount: z.number().int(),
  headHash: z.string().nullable().describe("the chain hash of the session's last event when erased"),
  headRevision: decimalString.nullable(),
  message: z.string().describe('`<stream>: erased at <time> by <actor>: <reason>`'),
});

export const verifySessionResponse = responseSchema(
  'SessionVerification',
  z.object({
    sessionId: z.string(),
    ok: z.boolean().describe('no finding and no refused anchor'),
    events: z.number().int().describe('events whose hash chain checked out'),
    headHash: z.string().nullable(),
    headRevision: revision,
    brokenAt: chainBreak.nullable(),
    anchorsMatched: z.number().int().describe("anchors of the engine's anchor log the chain matched"),
    anchorsAnsweredByErasure: z.number().int(),
    erasure: erasureView.nullable(),
    findings: z.array(integrityFinding),
    refusedAnchors: z.array(refusedAnchor).describe('the first 20 refused'),
    refusedAnchorCount: z.number().int(),
  }),
);

export const verifyTenantResponse = responseSchema(
  'TenantVerification',
  z.object({
    ok: z.boolean(),
    sessions: z.number().int(),
    events: z.number().int(),
    anchorsMatched: z.number().int(),
    broken: z.array(chainBreak.extend({ sessionId: z.string() })),
    findings: z.array(integrityFinding.extend({ sessionId: z.string() })),
    erased: z.array(erasureView.extend({ sessionId: z.string() })),
    refusedAnchors: z.array(refusedAnchor),
    refusedAnchorCount: z.number().int(),
  }),
);

export const auditAttemptResponse = responseSchema(
  'AuditAttempt',
  storedAuditAttemptSchema.extend({ position: decimalString, startPosition: decimalString }),
  'One compaction or branch-summary attempt: its trigger and outcome; `model`, the model the ' +
    "provider reported it answered with, and `usage`, the sum of every call; who started it (the API key's " +
    'name as `actor`, `X-Strata-Actor` as `onBehalfOf`; `strata-engine` for a saga) and the ' +
    '`customInstructions` it was given; `force`, a compaction asked with `force: true`; and `summaryCalls`, every request sent to a summariser ' +
    'candidate in order (purpose, candidate, retry, duration, and the reported model and usage, or ' +
    'the error of a failed try), at most 64 listed (`summaryCallsOmitted` counts the others).',
);

export const attemptListResponse = responseSchema(
  'AttemptList',
  z.object({
    items: z.array(auditAttemptResponse),
    total: z.number().int(),
    nextCursor: z.string().nullable(),
  }),
);

export const leaseResponse = responseSchema(
  'SessionLease',
  z.object({
    sessionId: z.string(),
    token: z
      .string()
      .describe(
        '`<sequence>.<nonce>`: carry it as `leaseToken` on every write; a later lease has a higher sequence',
      ),
    sequence: z.number().int().describe('the number of this lease in the session (fencing order)'),
    holder: z.string(),
    expiresAt: z.string().describe('ISO 8601; renew before then'),
    revision: decimalString,
  }),
);
