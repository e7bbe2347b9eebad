// Reads an assembled summary prompt back into its parts (reference §5.1–5.2): the transcript inside
// `<conversation>`, the optional `<previous-summary>` and `<additional-context>` blocks. The
// transcript is split into the labelled blocks the serialiser writes (`[User]: …` and so on).

export type TranscriptBlockKind = 'user' | 'assistant' | 'thinking' | 'tool_calls' | 'tool_result';

export interface TranscriptBlock {
  readonly kind: TranscriptBlockKind;
  /** The block's text without its label; may span several lines. */
  readonly text: string;
}

export interface SummaryPromptParts {
  readonly transcript: readonly TranscriptBlock[];
  readonly previousSummary: string | undefined;
  /** The `- ` lines of `<additional-context>`, without the dash. */
  readonly additionalContext: readonly string[];
}

const blockLabels: ReadonlyArray<readonly [string, TranscriptBlockKind]> = [
  ['[User]: ', 'user'],
  ['[Assistant thinking]: ', 'thinking'],
  ['[Assistant tool calls]: ', 'tool_calls'],
  ['[Assistant]: ', 'assistant'],
  ['[Tool result]: ', 'tool_result'],
];

function labelOf(line: string): readonly [string, TranscriptBlockKind] | undefined {
  return blockLabels.find(([label]) => line.startsWith(label));
}

/** The text between `<tag>\n` and the last `\n</tag>` at or after it, or undefined. */
function between(text: string, tag: string, from: number): { inner: string; end: number } | undefined {
  const open = `<${tag}>\n`;
  const start = text.indexOf(open, from);
  if (start === -1) return undefined;
  const close = text.lastIndexOf(`\n</${tag}>`);
  if (close < start + open.length - 1) return undefined;
  return { inner: text.slice(start + open.length, Math.max(start + open.length, close)), end: close };
}

/** Splits a transcript into labelled blocks; lines before the first label are ignored. */
export function parseTranscript(transcript: string): TranscriptBlock[] {
  const blocks: Array<{ kind: TranscriptBlockKind; lines: string[] }> = [];
  for (const line of transcript.split('\n')) {
    const label = labelOf(line);
    if (label !== undefined) {
      blocks.push({ kind: label[1], lines: [line.slice(label[0].length)] });
    } else {
      blocks.at(-1)?.lines.push(line);
    }
  }
  return blocks.map((block) => ({ kind: block.kind, text: block.lines.join('\n').trimEnd() }));
}

export function parseSummaryPrompt(prompt: string): SummaryPromptParts {
  const conversation = between(prompt, 'conversation', 0);
  const afterConversation = conversation?.end ?? 0;
  const previous = between(prompt, 'previous-summary', afterConversation);
  const context = between(prompt, 'additional-context', previous?.end ?? afterConversation);
  const additionalContext = (context?.inner ?? '')
    .split('\n')
    .map((line) => line.replace(/^\s*-\s?/, '').trim())
    .filter((line) => line.length > 0);
  const previousSummary = previous?.inner.trim();
  return {
    transcript: parseTranscript(conversation?.inner ?? ''),
    previousSummary:
      previousSummary === undefined || previousSummary.length === 0 ? undefined : previousSummary,
    additionalContext,
  };
}
