// What clients send to the sessions endpoints: bodies, query strings and path parameters.
import {
  MAX_CUSTOM_INSTRUCTIONS_LENGTH,
  MAX_LEASE_TTL_MS,
  MIN_LEASE_TTL_MS,
  compactionTriggers,
  customInstructionsSchema,
  identifierSchema,
  recordedSessionEntrySchema,
  recordedSessionHeaderSchema,
  sessionEntrySchema,
  sessionHeaderSchema,
} from '@strata/session';
import { MAX_SEARCH_QUERY_LENGTH } from '@strata/projections';
import { z } from 'zod';
import {
  booleanQuery,
  decimalString,
  pageQueryFields,
  requestSchema,
  responseSchema,
} from '../openapi/api-schemas';

export const MAX_ENTRIES_PER_APPEND = 10_000;
/** The longest wait a context read may ask for (`waitForCompaction`), in milliseconds. */
export const MAX_COMPACTION_WAIT_MS = 300_000;
export const MAX_SESSION_PAGE = 500;
export const MAX_ENTRY_PAGE = 1_000;

/** Entries and headers as clients send them: their shape and the input rules (README). */
export const sessionEntry = requestSchema('SessionEntry', sessionEntrySchema, 'One pi session entry (v3).');
// named for the OpenAPI document, where the schemas of session files refer to it
requestSchema('SessionHeader', sessionHeaderSchema, 'The header line of a pi v3 file.');

/** Entries and headers as the API answers with them: as recorded (older ones may predate the rules). */
export const recordedSessionEntry = responseSchema(
  'SessionEntry',
  recordedSessionEntrySchema,
  'One pi session entry (v3), as recorded.',
);
export const recordedSessionHeader = responseSchema(
  'SessionHeader',
  recordedSessionHeaderSchema,
  'The header line of a pi v3 file.',
);

/** Session, entry and attempt ids: the identifier rule of @strata/session, as every way in. */
const identifier = identifierSchema;

export const sessionIdParameter = identifier.describe('the session id');
const entryId = identifier;
const idempotencyKey = z.string().min(1).max(200);
const leaseTokenText = z.string().min(3).max(200);
/** The token of the session's writer lease: required on every write while a lease is in force. */
const leaseToken = leaseTokenText
  .optional()
  .describe(
    "the token of the session's writer lease (POST /sessions/{id}/lease): required while a lease is " +
      'in force (409 lease_held without it), refused when it is not the lease in force (409 lease_stale)',
  );

export const startSessionBody = requestSchema(
  'StartSessionRequest',
  z.strictObject({
    sessionId: identifier
      .optional()
      .describe('chosen by the caller for an idempotent start; a UUID otherwise'),
    cwd: z.string().min(1).describe("the agent's working directory"),
    title: z.string().optional(),
    parentSession: z.string().optional(),
  }),
);

export const appendEntriesBody = requestSchema(
  'AppendEntriesRequest',
  z.strictObject({
    entries: z.array(sessionEntry).min(1).max(MAX_ENTRIES_PER_APPEND),
    expectedRevision: decimalString
      .optional()
      .describe("the stream's last revision as the writer saw it; another one answers 409"),
    expectedLeafId: entryId
      .nullable()
      .optional()
      .describe('the leaf as the writer saw it (null: empty session); another one answers 409'),
    idempotencyKey: idempotencyKey
      .optional()
      .describe('the same key writes the batch once; again with other entries it answers 409'),
    leaseToken,
  }),
);

export const compactBody = requestSchema(
  'CompactRequest',
  z.strictObject({
    customInstructions: customInstructionsSchema
      .optional()
      .describe(
        `appended to the summary instructions (at most ${MAX_CUSTOM_INSTRUCTIONS_LENGTH} characters), ` +
          "recorded on the attempt's CompactionStarted and shown in the audit; the offline summariser " +
          'does not follow them: it quotes them in a Requested Focus section with the facts that share their words',
      ),
    trigger: z
      .enum(compactionTriggers)
      .optional()
      .describe('manual by default; threshold or overflow when the agent runtime reports them'),
    force: z
      .boolean()
      .optional()
      .describe(
        'compact even when the context fits in compaction.keepRecentTokens: keep the last turn only ' +
          '(or the end of the only turn) instead of answering skipped: nothing_to_summarize',
      ),
    attemptId: identifier
      .optional()
      .describe(
        'names the attempt within the session; a repeated id returns its recorded outcome, ' +
          'with another trigger, other instructions or another force it answers 409',
      ),
    leaseToken,
  }),
);

export const navigateBody = requestSchema(
  'NavigateRequest',
  z.strictObject({
    targetId: entryId,
    summarize: z.boolean().optional().describe('summarise the branch left behind'),
    customInstructions: customInstructionsSchema
      .optional()
      .describe(
        `replace the branch-summary instructions (at most ${MAX_CUSTOM_INSTRUCTIONS_LENGTH} characters), ` +
          "recorded on the attempt's BranchSummaryStarted (or, for a summary declined, on the LeafMoved); " +
          'the offline summariser quotes them in a Requested Focus section instead of following them',
      ),
    attemptId: identifier
      .optional()
      .describe(
        'names the branch-summary attempt within the session; a repeated id returns its recorded ' +
          'outcome, with another target, summarize or instructions it answers 409',
      ),
    leaseToken,
  }),
);

export const abortBody = requestSchema(
  'AbortRequest',
  z.strictObject({
    attemptId: identifier.optional(),
    kind: z.enum(['compaction', 'branch_summary']).optional(),
  }),
);

export const setLabelBody = requestSchema(
  'SetLabelRequest',
  z.strictObject({
    targetId: entryId,
    label: z.string().max(1_000).nullable().optional().describe('missing, null or empty clears the label'),
    idempotencyKey: idempotencyKey
      .optional()
      .describe('the same key writes the label once; again with another target or label it answers 409'),
    leaseToken,
  }),
);

export const takeLeaseBody = requestSchema(
  'TakeLeaseRequest',
  z
    .strictObject({
      holder: z.string().min(1).max(200).optional().describe('who takes the lease (required without token)'),
      ttlMs: z
        .number()
        .int()
        .min(MIN_LEASE_TTL_MS)
        .max(MAX_LEASE_TTL_MS)
        .describe('how long the lease lasts from now unless renewed, in milliseconds'),
      token: leaseTokenText.optional().describe('renews the lease in force with this token'),
    })
    .refine((body) => body.token !== undefined || body.holder !== undefined, {
      message: 'holder is required to take a lease (token to renew one)',
      path: ['holder'],
    }),
);

export const releaseLeaseQuery = z.strictObject({
  token: leaseTokenText.describe('the token of the lease to release'),
});

export const listSessionsQuery = z.strictObject({
  text: z.string().max(500).optional().describe('case-insensitive text in the title or working directory'),
  q: z
    .string()
    .max(MAX_SEARCH_QUERY_LENGTH)
    .optional()
    .describe(
      'search inside the sessions: every word in one entry (case and accents ignored, the last word also as a prefix), or the text in the title or working directory; pages by offset',
    ),
  ...pageQueryFields(MAX_SESSION_PAGE),
});

export const contextQuery = z.strictObject({
  format: z.enum(['agent', 'llm']).default('agent').describe('agent messages, or messages for a provider'),
  leaf: entryId.optional().describe('the leaf to build for; the current leaf by default'),
  asOf: decimalString
    .optional()
    .describe('the global position: the context as it was once this event was recorded'),
  waitForCompaction: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_COMPACTION_WAIT_MS)
    .optional()
    .describe(
      `wait up to this many milliseconds (at most ${MAX_COMPACTION_WAIT_MS}) until no compaction of the ` +
        'session is under way or about to start, then answer; `compactionWait` says how it ended (not with `asOf`)',
    ),
});

export const entriesQuery = z.strictObject({
  leaf: entryId.optional().describe('only the path from the root to this entry'),
  offset: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_ENTRY_PAGE).optional(),
});

export const importQuery = z.strictObject({
  lenient: booleanQuery.describe('skip bad lines of a pi file instead of refusing the file'),
  format: z
    .enum(['pi', 'claude-code', 'codex', 'auto'])
    .optional()
    .describe(
      "the file's format; auto (the default) tells it from the lines. Claude Code and Codex files are converted, every original line kept",
    ),
  fromEntry: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      'the body is a part of a pi v3 file: its header line, then its entries after the first `fromEntry`, ' +
        'which the session must already hold (as `strata watch` sends a file as it grows); what the session ' +
        'lacks is appended. Not with `lenient` or another `format`',
    ),
  allowErased: booleanQuery.describe(
    'write a session that was erased again (refused with 409 session_erased otherwise; impossible on EventStoreDB, whose tombstone is final)',
  ),
});

export const exportQuery = z.strictObject({
  format: z
    .enum(['pi', 'original', 'events'])
    .default('pi')
    .describe(
      '`pi` (the default): the session as a pi v3 file; `original`: the Claude Code or Codex file the session ' +
        'was imported from, byte for byte; `events`: its raw event log (what `strata verify --file` checks)',
    ),
});

export const anchorsQuery = z.strictObject({
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("only anchors signed at or after this date-time (as the signing engine's clock said)"),
  after: z
    .string()
    .regex(/^(0|[1-9][0-9]{0,18})$/, 'a decimal position')
    .optional()
    .describe(
      'only anchors logged after this position of the anchor log (the `position` of the last anchor ' +
        'kept): everything since, whatever the clocks said',
    ),
});

export const attemptsQuery = z.strictObject({
  kind: z.enum(['compaction', 'branch_summary']).optional(),
  outcome: z.enum(['pending', 'completed', 'skipped', 'cancelled', 'failed']).optional(),
  order: z.enum(['newest_first', 'oldest_first']).optional(),
  ...pageQueryFields(MAX_SESSION_PAGE),
});

/** The path parameters of an operation on one session. */
export const sessionPath = { sessionId: sessionIdParameter };

export const entryIdParameter = entryId.describe('the entry id');
export const sessionEntryPath = { sessionId: sessionIdParameter, entryId: entryIdParameter };
