// The middle of a compaction attempt: the hooks, then the default summary (reference §8,
// §5.2–5.3). `session_before_compact` may cancel or supply a compaction, which is used only when
// its first kept entry is on the path and not a tool result (defect 23); otherwise the
// `session.compacting` hook shapes the prompt and the summarisers write the summary.
import { Injectable, Logger } from '@nestjs/common';
import {
  hookCompactionProblem,
  sessionModelOf,
  type CompactionReady,
  type SessionEntry,
} from '@strata/session';
import { SessionHooks } from '../../hooks/session-hooks.service';
import type { SummaryCallLog } from '../../summarizers/summary-calls';
import { contextWindowOf } from '../../settings/engine-settings';
import type { EngineSettings } from '../../settings/engine-settings.schema';
import { CompactionSummaries } from './compaction-summaries.service';
import { hookCompactionDraft, type CompactionDraft } from './compaction-record';
import { ABORTED_REASON, HOOK_CANCELLED_REASON, type CompactRequest } from './compaction-result';

export type ProducedCompaction =
  | { readonly kind: 'draft'; readonly draft: CompactionDraft }
  | { readonly kind: 'cancelled'; readonly reason: string };

@Injectable()
export class CompactionProducer {
  private readonly logger = new Logger('CompactionProducer');

  constructor(
    private readonly summaries: CompactionSummaries,
    private readonly hooks: SessionHooks,
  ) {}

  /** The hooks, then the default summary unless a hook cancelled or supplied a valid compaction. */
  async produce(
    request: CompactRequest,
    preparation: CompactionReady,
    path: readonly SessionEntry[],
    settings: EngineSettings,
    signal: AbortSignal,
    calls: SummaryCallLog,
  ): Promise<ProducedCompaction> {
    const { sessionId, attemptId, trigger, customInstructions } = request;
    const before = await this.hooks.session_before_compact({
      sessionId,
      attemptId,
      trigger,
      preparation,
      branchEntries: path,
      ...(customInstructions !== undefined ? { customInstructions } : {}),
      signal,
    });
    if (before?.cancel === true) return { kind: 'cancelled', reason: HOOK_CANCELLED_REASON };
    if (before?.compaction) {
      const problem = hookCompactionProblem(before.compaction, path);
      if (problem === undefined) return { kind: 'draft', draft: hookCompactionDraft(before.compaction) };
      this.logger.warn(
        `session_before_compact supplied a compaction that was rejected (${problem}); compacting as usual`,
      );
    }
    if (signal.aborted) return { kind: 'cancelled', reason: ABORTED_REASON };
    const compacting = await this.hooks['session.compacting']({
      sessionId,
      attemptId,
      messages: [...preparation.messagesToSummarize, ...preparation.turnPrefixMessages],
    });
    const generated = await this.summaries.summarize(preparation, {
      reserveTokens: settings.compaction.reserveTokens,
      contextWindow: contextWindowOf(settings, sessionModelOf(path)),
      signal,
      calls,
      ...(customInstructions !== undefined ? { customInstructions } : {}),
      ...(compacting?.prompt !== undefined ? { hookPrompt: compacting.prompt } : {}),
      ...(compacting?.context !== undefined ? { hookContext: compacting.context } : {}),
    });
    return {
      kind: 'draft',
      draft: {
        summary: generated.summary,
        ...(generated.shortSummary !== undefined ? { shortSummary: generated.shortSummary } : {}),
        firstKeptEntryId: preparation.firstKeptEntryId,
        tokensBefore: preparation.tokensBefore,
        details: generated.details,
        ...(compacting?.preserveData !== undefined ? { preserveData: compacting.preserveData } : {}),
        fromExtension: false,
        ...(generated.model !== undefined ? { model: generated.model } : {}),
        ...(generated.usage !== undefined ? { usage: generated.usage } : {}),
      },
    };
  }
}
