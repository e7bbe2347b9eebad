// What the summary runner tells of every try it makes (the engine's metrics listen): a try that
// failed, with what follows it, and the one that answered. An observer only counts: it never
// throws and never changes what the runner does.
import type { AttemptFailure, CandidateOutcome } from '@strata/summarizer';

export interface SummaryCallObserver {
  tryFailed(failure: AttemptFailure): void;
  answered(outcome: CandidateOutcome): void;
}

/** The engine's `SummaryCallObserver`, when it has one. */
export const SUMMARY_CALL_OBSERVER = Symbol('SUMMARY_CALL_OBSERVER');
