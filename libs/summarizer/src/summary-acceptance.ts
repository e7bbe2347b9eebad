// The one gate every provider's answer passes before it becomes a `SummaryResult`: a truncated,
// refused, incomplete or empty answer is rejected (reference §11.1 defect 14 fixed), so a
// half-written summary can never be stored as if it were complete.
import { type SummarizerErrorCode, SummarizerError } from './errors/summarizer-error';
import type { SummaryResult, SummaryStopReason, SummaryUsage } from './summarizer.port';

/** How a provider's generation ended, in provider-neutral words. */
export type GenerationEnd =
  | SummaryStopReason
  | 'length' // hit the output-token cap
  | 'refusal' // the model declined
  | 'context_overflow' // the model ran out of context window
  | 'incomplete'; // stopped for another reason (tool use, pause)

export interface ProviderAnswer {
  readonly summarizer: string;
  readonly text: string;
  readonly end: GenerationEnd;
  /** The provider's own name for how it ended, quoted in error messages. */
  readonly providerStopReason?: string;
  readonly model: string;
  readonly usage?: SummaryUsage;
  readonly shortSummary?: string;
}

function failure(answer: ProviderAnswer, code: SummarizerErrorCode, message: string): SummarizerError {
  return new SummarizerError({ code, message, summarizer: answer.summarizer });
}

/** The answer as a result; otherwise throws the `invalid_response` or `overflow` error that rejects it. */
export function acceptSummary(answer: ProviderAnswer): SummaryResult {
  const reason = answer.providerStopReason ?? answer.end;
  switch (answer.end) {
    case 'stop':
    case 'unreported':
      if (answer.text.trim().length === 0) {
        throw failure(answer, 'empty_summary', 'The summariser returned an empty summary');
      }
      return {
        text: answer.text,
        model: answer.model,
        stopReason: answer.end,
        ...(answer.usage === undefined ? {} : { usage: answer.usage }),
        ...(answer.shortSummary === undefined ? {} : { shortSummary: answer.shortSummary }),
      };
    case 'length':
      throw failure(
        answer,
        'truncated',
        `The summary was cut off at the output limit (stop reason ${reason})`,
      );
    case 'refusal':
      throw failure(answer, 'refused', `The model declined to summarise (stop reason ${reason})`);
    case 'context_overflow':
      throw failure(
        answer,
        'context_overflow',
        `The prompt exceeds the model's context window (stop reason ${reason})`,
      );
    case 'incomplete':
      throw failure(
        answer,
        'incomplete',
        `The model stopped before finishing a summary (stop reason ${reason})`,
      );
    default: {
      const unreachable: never = answer.end;
      throw new Error(`unknown generation end ${String(unreachable)}`);
    }
  }
}
