// The one adapter between the pure domain's summary requests (@strata/session) and the
// summariser port (@strata/summarizer): the two name a request's purpose differently, and the
// port tells a first history summary from an update of a previous one.
import type {
  SummaryRequest as PortSummaryRequest,
  SummaryPurpose as PortPurpose,
  SummaryUsage,
} from '@strata/summarizer';
import type { SummaryRequest as DomainSummaryRequest, Usage } from '@strata/session';

export function toPortRequest(
  request: DomainSummaryRequest,
  options: { readonly updatesPreviousSummary: boolean },
): PortSummaryRequest {
  return {
    purpose: portPurpose(request.purpose, options.updatesPreviousSummary),
    systemPrompt: request.systemPrompt,
    prompt: request.prompt,
    maxTokens: request.maxTokens,
  };
}

function portPurpose(purpose: DomainSummaryRequest['purpose'], updatesPreviousSummary: boolean): PortPurpose {
  switch (purpose) {
    case 'history':
      return updatesPreviousSummary ? 'update' : 'history';
    case 'turn-prefix':
      return 'turn_prefix';
    case 'short-summary':
      return 'short';
    case 'branch':
      return 'branch';
    default: {
      const unhandled: never = purpose;
      throw new Error(`unhandled summary purpose ${String(unhandled)}`);
    }
  }
}

/** A summariser's token counts as a session usage record. */
export function toSessionUsage(usage: SummaryUsage): Usage {
  return {
    input: usage.input,
    output: usage.output,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: usage.input + usage.output,
  };
}

/** The sum of several usage records; undefined when none was reported. */
export function addUsage(records: readonly (Usage | undefined)[]): Usage | undefined {
  const reported = records.filter((record): record is Usage => record !== undefined);
  if (reported.length === 0) return undefined;
  const sum = (pick: (usage: Usage) => number): number =>
    reported.reduce((total, usage) => total + pick(usage), 0);
  return {
    input: sum((usage) => usage.input),
    output: sum((usage) => usage.output),
    cacheRead: sum((usage) => usage.cacheRead),
    cacheWrite: sum((usage) => usage.cacheWrite),
    totalTokens: sum((usage) => usage.totalTokens ?? usage.input + usage.output),
  };
}
