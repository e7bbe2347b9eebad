// The `provider` and `model` labels of a summariser call, read from the candidate's name (the
// providers and the candidate list build it: `anthropic:<model>`, `openai:<model>`,
// `openai-compatible:<model>@<host>`, `remote:<host><path>`, `remote-endpoint`,
// `offline-extractive`) and from the model the provider reported. Both stay bounded: names come
// from the configured candidates, and a label keeps at most MAX_VALUES_PER_LABEL distinct values
// (a provider that reports a new model name on every answer cannot grow the series without end),
// each cut to MAX_VALUE_LENGTH characters.

/** The model label of a call whose candidate names no model and that no answer reported. */
export const UNKNOWN_MODEL = 'unknown';
/** What a label reads once it has seen MAX_VALUES_PER_LABEL values. */
export const OTHER_VALUE = 'other';
export const MAX_VALUES_PER_LABEL = 32;
export const MAX_VALUE_LENGTH = 128;

export interface SummarizerLabels {
  readonly provider: string;
  readonly model: string;
}

/** The provider, and the model the candidate asks for (undefined when its name carries none). */
export function candidateLabels(candidateName: string): {
  readonly provider: string;
  readonly model?: string;
} {
  const colon = candidateName.indexOf(':');
  if (colon < 0) return { provider: candidateName };
  const provider = candidateName.slice(0, colon);
  const rest = candidateName.slice(colon + 1);
  switch (provider) {
    case 'anthropic':
    case 'openai':
      return { provider, model: rest };
    case 'openai-compatible': {
      const at = rest.lastIndexOf('@');
      return { provider, model: at < 0 ? rest : rest.slice(0, at) };
    }
    default:
      // `remote:<host><path>` and any other name: the address is not a model.
      return { provider };
  }
}

/** Keeps the values a label has taken, and answers `other` for any beyond the bound. */
export class BoundedLabelValues {
  private readonly seen = new Set<string>();

  constructor(private readonly bound: number = MAX_VALUES_PER_LABEL) {}

  valueOf(given: string): string {
    const value = given.length <= MAX_VALUE_LENGTH ? given : given.slice(0, MAX_VALUE_LENGTH);
    if (this.seen.has(value)) return value;
    if (this.seen.size >= this.bound) return OTHER_VALUE;
    this.seen.add(value);
    return value;
  }
}

/** The labels of calls: the model reported when there is one, else the one asked for, else `unknown`. */
export class SummarizerLabeller {
  private readonly providers = new BoundedLabelValues();
  private readonly models = new BoundedLabelValues();

  labelsOf(candidateName: string, reportedModel?: string): SummarizerLabels {
    const candidate = candidateLabels(candidateName);
    const model = reportedModel !== undefined && reportedModel !== '' ? reportedModel : candidate.model;
    return {
      provider: this.providers.valueOf(candidate.provider),
      model: model === undefined ? UNKNOWN_MODEL : this.models.valueOf(model),
    };
  }
}
