// The two Markdown templates that wrap stored summaries when they are fed back to the model
// (reference §2.2), and the small renderer that fills them. The templates arrive as data (the
// summarizer lib reads them from `prompts/context/`), so this module stays pure.

/** The context templates' texts, each holding a `{{summary}}` placeholder. */
export interface ContextTemplates {
  /** Wraps a `compactionSummary` message (`prompts/context/compaction-summary-context.md`). */
  readonly compactionSummaryContext: string;
  /** Wraps a `branchSummary` message (`prompts/context/branch-summary-context.md`). */
  readonly branchSummaryContext: string;
}

export class TemplateVariableMissingError extends Error {
  constructor(readonly variableName: string) {
    super(`Template placeholder {{${variableName}}} has no value`);
    this.name = 'TemplateVariableMissingError';
  }
}

const placeholderPattern = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/**
 * Substitutes every `{{name}}` placeholder with its value (verbatim: no HTML escaping) and then
 * normalises the layout. Throws `TemplateVariableMissingError` for a placeholder without a value.
 */
export function renderTemplate(text: string, variables: Readonly<Record<string, string>>): string {
  const substituted = text.replace(placeholderPattern, (_placeholder, name: string) => {
    const value = Object.prototype.hasOwnProperty.call(variables, name) ? variables[name] : undefined;
    if (value === undefined) throw new TemplateVariableMissingError(name);
    return value;
  });
  return normaliseTemplateLayout(substituted);
}

/**
 * The reference's layout pass over a rendered template: CRLF → LF, non-breaking spaces → spaces,
 * trailing whitespace removed from every line, runs of three or more newlines collapsed to two,
 * and the whole text trimmed. Indentation is left as written (the reference turns pairs of
 * leading spaces into tabs; we do not).
 */
export function normaliseTemplateLayout(text: string): string {
  return text
    .replace(/\r\n/g, '\n')
    .replace(/\u00a0/g, ' ')
    .replace(/[ \t\f\v]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
