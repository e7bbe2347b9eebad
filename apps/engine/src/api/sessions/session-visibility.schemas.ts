// What a host reads of the engine's own work (issue 25): how a compaction attempt ended (the
// append's answer, the context read's `compactionWait`), what the context repaired, and one
// entry of a session. Kept apart from session-responses.schemas.ts, which uses the first two.
import { compactionTriggers } from '@strata/session';
import { z } from 'zod';
import { decimalString, responseSchema } from '../openapi/api-schemas';
import { recordedSessionEntry } from './session-requests.schemas';

const trigger = z.enum(compactionTriggers);

export const compactionEnding = {
  outcome: z
    .enum(['completed', 'skipped', 'cancelled', 'failed'])
    .nullable()
    .describe('how the attempt ended; null while it is open (or not started yet)'),
  reason: z
    .string()
    .nullable()
    .describe(
      'why a skipped or cancelled attempt did not compact (`nothing_to_summarize`, `already_compacted`, ' +
        '`stale`, `disabled`, …); the error code (else message) of a failed one; null otherwise',
    ),
  willRetry: z
    .boolean()
    .describe(
      'true when an overflow recovery completed: the failed request is to be sent again on the compacted context',
    ),
  entryId: z.string().nullable().describe('the compaction entry a completed attempt appended'),
};

export const compactionReport = z.object({
  attemptId: z.string(),
  trigger,
  ...compactionEnding,
});

export const contextRepairs = z
  .object({
    synthesizedResults: z
      .array(z.string())
      .describe(
        'tool call ids that had no result on the path: the context answers each with a synthetic error ' +
          'result (`details.synthetic: true`; its `entryIds` item is null)',
      ),
    droppedOrphanResults: z
      .array(z.string())
      .describe('entry ids of tool results left out because no open call of the answer before them matches'),
    omittedFailedAnswers: z
      .array(z.string())
      .describe('entry ids of answers left out because they failed before the model said anything'),
    missingFirstKeptEntry: z
      .object({ compactionId: z.string(), firstKeptEntryId: z.string() })
      .nullable()
      .describe("the latest compaction's `firstKeptEntryId` is not on the path before it: nothing was kept"),
  })
  .describe(
    'what the context differs in from the entries on the path, so that the model gets a valid request',
  );

export const sessionEntryResponse = responseSchema(
  'SessionEntryView',
  z.object({
    sessionId: z.string(),
    entry: recordedSessionEntry,
    label: z.string().nullable().describe('the label in force on the entry (null: none)'),
    childIds: z.array(z.string()).describe('the entries appended under it'),
    onCurrentPath: z.boolean().describe('whether the entry is on the path from the root to the current leaf'),
    leafId: z.string().nullable(),
    revision: decimalString,
    position: decimalString,
  }),
  'One entry of a session, as stored.',
);
