// The summary calls of one attempt (issue 13, item 8): every request the runner sent to a
// candidate, answered or failed, with what it was for, which candidate and which try, how long it
// took, and the model and usage the provider reported or the error. The attempt's outcome records
// them, whichever way it ends (a failed attempt lists the tries that failed). At most
// MAX_SUMMARY_CALLS are kept, the latest; the earlier ones are counted. Names and messages from
// outside the engine are cut to the bounds the decider holds them to.
import {
  MAX_SUMMARY_CALLS,
  MAX_SUMMARY_CALL_ERROR_LENGTH,
  MAX_SUMMARY_CALL_NAME_LENGTH,
  type SummaryCall,
  type SummaryCallsRecord,
} from '@strata/session';

function cut(text: string, bound: number): string {
  return text.length <= bound ? text : `${text.slice(0, bound - 1)}…`;
}

/** A model name as the engine records it (the provider chooses it): within the decider's bound. */
export function recordedModelName(model: string): string {
  return cut(model, MAX_SUMMARY_CALL_NAME_LENGTH);
}

export class SummaryCallLog {
  private readonly calls: SummaryCall[] = [];
  private omitted = 0;

  record(call: SummaryCall): void {
    this.calls.push({
      ...call,
      summarizer: cut(call.summarizer, MAX_SUMMARY_CALL_NAME_LENGTH),
      ...(call.model !== undefined ? { model: recordedModelName(call.model) } : {}),
      ...(call.error !== undefined
        ? { error: { ...call.error, message: cut(call.error.message, MAX_SUMMARY_CALL_ERROR_LENGTH) } }
        : {}),
    });
    if (this.calls.length > MAX_SUMMARY_CALLS) {
      this.calls.shift();
      this.omitted += 1;
    }
  }

  /** What an outcome records of the calls; nothing when none was made. */
  fields(): SummaryCallsRecord {
    return {
      ...(this.calls.length > 0 ? { summaryCalls: [...this.calls] } : {}),
      ...(this.omitted > 0 ? { summaryCallsOmitted: this.omitted } : {}),
    };
  }
}
