// The one adapter between the pure domain's summary requests (@strata/session) and the
// summariser port (@strata/summarizer): the two name a request's purpose differently, and the
// port tells a first history summary from an update of a previous one.
import type {
  SummaryRequest as PortSummaryRequest,
  SummaryPurpose as PortPurpose,
  SummaryUsage,
} from '@strata/summarizer';
import {
  boundedFigure,
  MAX_TOKEN_FIGURE,
  sumOfTokenFigures,
  type SummaryRequest as DomainSummaryRequest,
  type Usage,
} from '@strata/session';

export function toPortRequest(
  request: DomainSummaryRequest,
  options: { readonly updatesPreviousSummary: boolean },
): PortSummaryRequest {
  return {
    purpose: portPurpose(request.purpose, options.updatesPreviousSummary),
    systemPrompt: request.systemPrompt,
    prompt: request.prompt,
    maxTokens: request.maxTokens,
    ...(request.customInstructions !== undefined ? { customInstructions: request.customInstructions } : {}),
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

/**
 * A summariser's token counts as a session usage record. A provider is outside the engine: its
 * figures are brought into the bounds every usage record keeps (usage-bounds.ts in the domain).
 */
export function toSessionUsage(usage: SummaryUsage): Usage {
  const input = boundedFigure(usage.input, MAX_TOKEN_FIGURE);
  const output = boundedFigure(usage.output, MAX_TOKEN_FIGURE);
  return { input, output, cacheRead: 0, cacheWrite: 0, totalTokens: sumOfTokenFigures([input, output]) };
}
