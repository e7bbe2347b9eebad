// Produces the summary of a prepared compaction (reference §5.2–5.3): the history summary and,
// for a split turn, the turn-prefix summary in parallel, then the short summary, then the stored
// text with the file lists. Differences from the reference (§11.1): a failed short summary is
// left out instead of failing the compaction, and a short summary the summariser already
// returned (the remote endpoint may) is used instead of a second request (defect 11).
import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  assembleCompactionSummary,
  buildCompactionRequests,
  buildShortSummaryRequest,
  computeFileLists,
  mergeCompactionSummary,
  addUsage,
  type CompactionReady,
  type FileLists,
  type SummaryRequest,
  type Usage,
} from '@strata/session';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import { isSummarizerError } from '@strata/summarizer';
import { ENGINE_TEMPLATES, TOKEN_COUNTER } from '../../shared/injection-tokens';
import type { EngineTemplates } from '../../shared/engine-templates';
import { SummaryRunner, type SummaryAnswer } from '../../summarizers/summary-runner.service';

import type { SummaryCallLog } from '../../summarizers/summary-calls';

export interface CompactionSummaryOptions {
  readonly reserveTokens: number;
  /** The context window of the session's model: bounds every request's input. */
  readonly contextWindow: number;
  readonly customInstructions?: string;
  readonly hookPrompt?: string;
  readonly hookContext?: readonly string[];
  readonly signal: AbortSignal;
  /** The attempt's log of summary calls. */
  readonly calls?: SummaryCallLog;
}

export interface GeneratedCompactionSummary {
  /** The stored text: merged summary, then the file lists. */
  readonly summary: string;
  readonly shortSummary?: string;
  readonly details: FileLists;
  /** The model that wrote the main part, as its provider reported it. */
  readonly model?: string;
  /** What every call spent, added up (each call's own usage is in the attempt's call log). */
  readonly usage?: Usage;
}

@Injectable()
export class CompactionSummaries {
  private readonly logger = new Logger('CompactionSummaries');

  constructor(
    private readonly runner: SummaryRunner,
    @Inject(ENGINE_TEMPLATES) private readonly templates: EngineTemplates,
    @Inject(TOKEN_COUNTER) private readonly counter: PreparedTokenCounter,
  ) {}

  /** Rejects with a `SummarizerError` when a required summary fails or the signal aborts. */
  async summarize(
    preparation: CompactionReady,
    options: CompactionSummaryOptions,
  ): Promise<GeneratedCompactionSummary> {
    const inputTokenBudget = Math.max(0, options.contextWindow - options.reserveTokens);
    const plan = await this.counter.whenCounted((counter) =>
      buildCompactionRequests(preparation, this.templates.summary, {
        reserveTokens: options.reserveTokens,
        contextTemplates: this.templates.context,
        inputBudget: { inputTokenBudget, counter },
        ...(options.customInstructions !== undefined
          ? { customInstructions: options.customInstructions }
          : {}),
        ...(options.hookPrompt !== undefined ? { hookPrompt: options.hookPrompt } : {}),
        ...(options.hookContext !== undefined ? { hookContext: options.hookContext } : {}),
      }),
    );
    const updatesPreviousSummary = preparation.previousSummary !== undefined;
    const [history, turnPrefix] = await this.inParallel(
      options,
      [plan.history.kind === 'generate' ? plan.history.request : undefined, plan.turnPrefix],
      updatesPreviousSummary,
    );
    const historyText = history?.text ?? (plan.history.kind === 'reuse' ? plan.history.summary : '');
    const merged = mergeCompactionSummary(historyText, turnPrefix?.text);

    const short =
      history?.shortSummary !== undefined
        ? undefined
        : await this.shortSummary(preparation, merged, options, inputTokenBudget);
    const shortSummary = history?.shortSummary ?? short?.text;
    const details = computeFileLists(preparation.fileOperations);
    const model = history?.model ?? turnPrefix?.model ?? short?.model;
    const usage = addUsage([history?.usage, turnPrefix?.usage, short?.usage]);
    return {
      summary: assembleCompactionSummary(historyText, turnPrefix?.text, details, this.templates.summary),
      ...(shortSummary !== undefined ? { shortSummary } : {}),
      details,
      ...(model !== undefined ? { model } : {}),
      ...(usage !== undefined ? { usage } : {}),
    };
  }

  /** Runs the requests together; the first failure aborts the others. */
  private async inParallel(
    options: CompactionSummaryOptions,
    requests: readonly (SummaryRequest | undefined)[],
    updatesPreviousSummary: boolean,
  ): Promise<(SummaryAnswer | undefined)[]> {
    const siblings = new AbortController();
    const combined = AbortSignal.any([options.signal, siblings.signal]);
    const calls = options.calls !== undefined ? { calls: options.calls } : {};
    return Promise.all(
      requests.map(async (request) => {
        if (request === undefined) return undefined;
        try {
          return await this.runner.summarize(request, { signal: combined, updatesPreviousSummary, ...calls });
        } catch (error) {
          siblings.abort(error);
          throw error;
        }
      }),
    );
  }

  private async shortSummary(
    preparation: CompactionReady,
    merged: string,
    options: CompactionSummaryOptions,
    inputTokenBudget: number,
  ): Promise<SummaryAnswer | undefined> {
    const request = await this.counter.whenCounted((counter) =>
      buildShortSummaryRequest(preparation, merged, this.templates.summary, {
        reserveTokens: options.reserveTokens,
        contextTemplates: this.templates.context,
        inputBudget: { inputTokenBudget, counter },
        ...(options.hookContext !== undefined ? { hookContext: options.hookContext } : {}),
      }),
    );
    try {
      return await this.runner.summarize(request, {
        signal: options.signal,
        ...(options.calls !== undefined ? { calls: options.calls } : {}),
      });
    } catch (error) {
      if (options.signal.aborted || !isSummarizerError(error) || error.kind === 'aborted') throw error;
      this.logger.warn(`short summary left out: ${error.message}`);
      return undefined;
    }
  }
}
