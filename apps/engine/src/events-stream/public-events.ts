// Store events → public events (the mapping is documented in the README, "Event stream").
// Each public event is numbered within its store event: index 0 is the event's own name, index 1
// the `auto_compaction_*` event of an automatic attempt. Its SSE id is the store event's global
// position, with `.1` for index 1, so a subscriber resuming from any id misses nothing and gets
// nothing twice. Outcome events are copied with the facts they carry (trigger, model, usage,
// duration, tokens; a branch summary's navigation). What an event does not carry (the compaction
// entry; the trigger or old leaf of an outcome stored before outcomes carried them) is looked up
// in the session's stream.
import type { ProjectedEvent } from '@strata/projections';
import {
  isFromExtension,
  type AttemptError,
  type BranchSummaryStartedEvent,
  type CompactionStartedEvent,
  type CompactionTrigger,
  type SessionEntry,
} from '@strata/session';
import { publicNamesOfStoreEvent, type PublicEventName } from './public-event-names';

export interface PublicEvent {
  /** The SSE id: `<position>` or `<position>.<index>`. */
  readonly id: string;
  readonly name: PublicEventName;
  readonly position: string;
  readonly index: number;
  readonly sessionId: string;
  /** The store event's revision in its session stream. */
  readonly revision: string;
  readonly eventId: string;
  readonly recordedAt: string;
  readonly data: Readonly<Record<string, unknown>>;
}

export type AttemptStart =
  | { readonly kind: 'compaction'; readonly data: CompactionStartedEvent['data'] }
  | { readonly kind: 'branch_summary'; readonly data: BranchSummaryStartedEvent['data'] };

/** Reads of the session stream that some payloads need. */
export interface StreamLookups {
  /** The entry with this id appended before `revision`. */
  entryBefore(streamId: string, revision: bigint, entryId: string): Promise<SessionEntry | undefined>;
  /** The start event of an attempt, before `revision`. */
  attemptStartBefore(
    streamId: string,
    revision: bigint,
    attemptId: string,
  ): Promise<AttemptStart | undefined>;
  /** Whether the leaf move at `revision` is the first step of a branch summary written in the same append. */
  opensBranchSummary(streamId: string, revision: bigint): Promise<boolean>;
}

export interface EventSelection {
  readonly wants: (name: PublicEventName) => boolean;
  /** Only indexes above this one (resuming inside a store event). */
  readonly afterIndex?: number;
}

export function publicEventId(position: bigint, index: number): string {
  return index === 0 ? position.toString() : `${position}.${index}`;
}

/** The largest global position a store gives (a signed 64-bit integer). */
export const LARGEST_POSITION = 2n ** 63n - 1n;

/** Reads an SSE id back: the position and the index already delivered; undefined past the largest. */
export function parsePublicEventId(
  text: string,
): { readonly position: bigint; readonly index: number } | undefined {
  const match = /^(\d{1,19})(?:\.(\d{1,3}))?$/.exec(text.trim());
  if (match === null) return undefined;
  const position = BigInt(match[1] ?? '0');
  if (position > LARGEST_POSITION) return undefined;
  return { position, index: Number(match[2] ?? '0') };
}

function isAutomatic(trigger: CompactionTrigger): boolean {
  return trigger !== 'manual';
}

function failureMessage(trigger: CompactionTrigger, error: AttemptError): string {
  const what = trigger === 'overflow' ? 'Context overflow recovery failed' : 'Auto-compaction failed';
  return `${what}: ${error.message}`;
}

type Outcome = 'completed' | 'skipped' | 'cancelled' | 'failed';

/** The `auto_compaction_end` payload; `skipped` tells a benign no-op from a failure (reference §11.1 item 8). */
function automaticEnd(
  attemptId: string,
  trigger: CompactionTrigger,
  outcome: Outcome,
  extra: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return {
    attemptId,
    reason: trigger,
    outcome,
    aborted: outcome === 'cancelled',
    willRetry: outcome === 'completed' && trigger === 'overflow',
    skipped: outcome === 'skipped',
    result: null,
    ...extra,
  };
}

interface Draft {
  readonly name: PublicEventName;
  readonly index: number;
  readonly data: () => Promise<Record<string, unknown>> | Record<string, unknown>;
}

async function draftsOf(
  projected: ProjectedEvent,
  lookups: StreamLookups,
  wantsAutomatic: boolean,
): Promise<Draft[]> {
  const { event, streamId, revision } = projected;
  const names = publicNamesOfStoreEvent[event.type];
  const primary = (data: Draft['data']): Draft => ({ name: names.primary, index: 0, data });
  const automatic = (data: Draft['data']): Draft => ({
    name: names.automatic ?? names.primary,
    index: 1,
    data,
  });
  const triggerOf = async (attemptId: string): Promise<CompactionTrigger | undefined> => {
    const start = await lookups.attemptStartBefore(streamId, revision, attemptId);
    return start?.kind === 'compaction' ? start.data.trigger : undefined;
  };
  const oldLeafOf = async (attemptId: string): Promise<string | null> => {
    const start = await lookups.attemptStartBefore(streamId, revision, attemptId);
    return start?.kind === 'branch_summary' ? start.data.oldLeafId : null;
  };
  switch (event.type) {
    case 'SessionStarted':
      return [primary(() => ({ header: event.data.header }))];
    case 'EntryAppended':
      return [primary(() => ({ entry: event.data.entry }))];
    case 'LeafMoved':
      if (await lookups.opensBranchSummary(streamId, revision)) return [];
      return [
        primary(() => ({
          cause: 'leaf_moved',
          newLeafId: event.data.leafId,
          oldLeafId: event.data.previousLeafId,
          ...(event.data.summaryDeclined !== undefined
            ? { summaryDeclined: event.data.summaryDeclined }
            : {}),
          ...(event.data.customInstructions !== undefined
            ? { customInstructions: event.data.customInstructions }
            : {}),
        })),
      ];
    case 'ToolOutputsPruned':
      return [primary(() => ({ ...event.data }))];
    case 'CompactionStarted': {
      const { data } = event;
      const drafts = [primary(() => ({ ...data }))];
      if (isAutomatic(data.trigger))
        drafts.push(automatic(() => ({ attemptId: data.attemptId, reason: data.trigger })));
      return drafts;
    }
    case 'CompactionCompleted': {
      const { data } = event;
      const entry = async () => {
        const found = await lookups.entryBefore(streamId, revision, data.entryId);
        return found?.type === 'compaction' ? found : undefined;
      };
      const drafts = [
        primary(async () => {
          const compactionEntry = await entry();
          return {
            ...data,
            compactionEntry: compactionEntry ?? null,
            fromExtension: compactionEntry !== undefined && isFromExtension(compactionEntry),
          };
        }),
      ];
      if (isAutomatic(data.trigger)) {
        drafts.push(
          automatic(async () => {
            const compactionEntry = await entry();
            const result =
              compactionEntry === undefined
                ? null
                : {
                    summary: compactionEntry.summary,
                    ...(compactionEntry.shortSummary !== undefined
                      ? { shortSummary: compactionEntry.shortSummary }
                      : {}),
                    firstKeptEntryId: compactionEntry.firstKeptEntryId,
                    tokensBefore: compactionEntry.tokensBefore,
                    ...(compactionEntry.details !== undefined ? { details: compactionEntry.details } : {}),
                  };
            return automaticEnd(data.attemptId, data.trigger, 'completed', {
              result,
              compactionEntry: compactionEntry ?? null,
            });
          }),
        );
      }
      return drafts;
    }
    case 'CompactionSkipped':
    case 'CompactionCancelled':
    case 'CompactionFailed': {
      const { data } = event;
      const drafts = [primary(() => ({ ...data }))];
      const trigger = wantsAutomatic ? (data.trigger ?? (await triggerOf(data.attemptId))) : undefined;
      if (trigger !== undefined && isAutomatic(trigger)) {
        const outcome: Outcome =
          event.type === 'CompactionSkipped'
            ? 'skipped'
            : event.type === 'CompactionCancelled'
              ? 'cancelled'
              : 'failed';
        const extra =
          event.type === 'CompactionFailed'
            ? { errorMessage: failureMessage(trigger, event.data.error) }
            : { outcomeReason: event.data.reason };
        drafts.push(automatic(() => automaticEnd(data.attemptId, trigger, outcome, extra)));
      }
      return drafts;
    }
    case 'BranchSummaryStarted':
    case 'BranchSummarySkipped':
    case 'BranchSummaryCancelled':
    case 'BranchSummaryFailed':
    case 'ContinuationRequested':
    case 'LeaseRenewed':
    case 'LeaseReleased':
    case 'LeaseExpired':
      return [primary(() => ({ ...event.data }))];
    case 'LeaseTaken': {
      // The token is the holder's to write with: subscribers see who holds the lease, not its token.
      const { token: _token, ...taken } = event.data;
      return [primary(() => taken)];
    }
    case 'BranchSummaryCompleted': {
      const { data } = event;
      return [
        primary(async () => {
          const oldLeafId = data.oldLeafId !== undefined ? data.oldLeafId : await oldLeafOf(data.attemptId);
          const summaryEntry = await lookups.entryBefore(streamId, revision, data.entryId);
          return {
            cause: 'branch_summary',
            ...data,
            leafId: data.entryId,
            oldLeafId,
            summaryEntry: summaryEntry ?? null,
            fromExtension: summaryEntry?.type === 'branch_summary' && isFromExtension(summaryEntry),
          };
        }),
      ];
    }
    default: {
      const unhandled: never = event;
      throw new Error(`unhandled session event ${JSON.stringify(unhandled)}`);
    }
  }
}

/** The public events of one store event that the selection wants, in index order. */
export async function publicEventsOf(
  projected: ProjectedEvent,
  selection: EventSelection,
  lookups: StreamLookups,
): Promise<PublicEvent[]> {
  const afterIndex = selection.afterIndex ?? -1;
  const names = publicNamesOfStoreEvent[projected.event.type];
  const possible = [names.primary, ...(names.automatic !== undefined ? [names.automatic] : [])];
  if (!possible.some((name, index) => index > afterIndex && selection.wants(name))) return [];
  const wantsAutomatic = names.automatic !== undefined && afterIndex < 1 && selection.wants(names.automatic);
  const drafts = await draftsOf(projected, lookups, wantsAutomatic);
  const events: PublicEvent[] = [];
  for (const draft of drafts) {
    if (draft.index <= afterIndex || !selection.wants(draft.name)) continue;
    events.push({
      id: publicEventId(projected.position, draft.index),
      name: draft.name,
      position: projected.position.toString(),
      index: draft.index,
      sessionId: projected.sessionId,
      revision: projected.revision.toString(),
      eventId: projected.eventId,
      recordedAt: projected.recordedAt,
      data: await draft.data(),
    });
  }
  return events;
}
