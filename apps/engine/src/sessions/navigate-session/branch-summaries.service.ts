// Produces the text of a branch summary (reference §6.2–6.3): the abandoned entries newest
// first within the budget (context window − branchSummary.reserveTokens), one request to the
// summarisers, then the stored text with the preamble and the file lists (defects 10 and 20
// fixed in @strata/session).
import { Inject, Injectable } from '@nestjs/common';
import {
  assembleBranchSummary,
  buildBranchSummaryRequest,
  computeFileLists,
  prepareBranchEntries,
  type FileLists,
  type SessionEntry,
  type Usage,
} from '@strata/session';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import type { EngineTemplates } from '../../shared/engine-templates';
import { ENGINE_TEMPLATES, TOKEN_COUNTER } from '../../shared/injection-tokens';
import { SummaryRunner } from '../../summarizers/summary-runner.service';
import type { SummaryCallLog } from '../../summarizers/summary-calls';

export interface BranchSummaryOptions {
  readonly contextWindow: number;
  readonly reserveTokens: number;
  /** Replaces the branch-summary instructions. */
  readonly customInstructions?: string;
  readonly signal: AbortSignal;
  /** The attempt's log of summary calls. */
  readonly calls?: SummaryCallLog;
}

export interface GeneratedBranchSummary {
  readonly summary: string;
  readonly details: FileLists;
  /** The model that wrote it, as its provider reported it. */
  readonly model?: string;
  readonly usage?: Usage;
}

@Injectable()
export class BranchSummaries {
  constructor(
    private readonly runner: SummaryRunner,
    @Inject(ENGINE_TEMPLATES) private readonly templates: EngineTemplates,
    @Inject(TOKEN_COUNTER) private readonly counter: PreparedTokenCounter,
  ) {}

  /** Rejects with a `SummarizerError` when every summariser fails or the signal aborts. */
  async summarize(
    entries: readonly SessionEntry[],
    options: BranchSummaryOptions,
  ): Promise<GeneratedBranchSummary> {
    const tokenBudget = Math.max(0, options.contextWindow - options.reserveTokens);
    const { input, plan } = await this.counter.whenCounted((counter) => {
      const prepared = prepareBranchEntries(entries, tokenBudget, counter);
      return {
        input: prepared,
        plan: buildBranchSummaryRequest(prepared, this.templates.summary, {
          contextTemplates: this.templates.context,
          inputBudget: { inputTokenBudget: tokenBudget, counter },
          ...(options.customInstructions !== undefined
            ? { customInstructions: options.customInstructions }
            : {}),
        }),
      };
    });
    const details = computeFileLists(input.fileOperations);
    if (plan.kind === 'no-content') return { summary: plan.summary, details };
    const answer = await this.runner.summarize(plan.request, {
      signal: options.signal,
      ...(options.calls !== undefined ? { calls: options.calls } : {}),
    });
    return {
      summary: assembleBranchSummary(answer.text, details, this.templates.summary),
      details,
      model: answer.model,
      ...(answer.usage !== undefined ? { usage: answer.usage } : {}),
    };
  }
}
