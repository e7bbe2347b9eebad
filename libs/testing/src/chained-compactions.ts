// Replays a real session file and compacts it again, one compaction after another, the way the
// engine does (CompactionSummaries: history and turn-prefix summaries, the short summary from the
// kept messages, the stored text with the file lists), with the repository's prompt templates and
// a summariser given as a function. Compactions happen where the file had its own (those entries
// are replaced) and at its end, so a file with two compactions yields a chain of three.
import {
  type AgentMessage,
  type CompactionEntry,
  type ImageContent,
  type TextContent,
  type CompactionReady,
  type SessionEntry,
  type SummaryRequest as DomainSummaryRequest,
  DEFAULT_COMPACTION_SETTINGS,
  assembleCompactionSummary,
  buildCompactionRequests,
  buildShortSummaryRequest,
  charsPerFourCounter,
  computeFileLists,
  mergeCompactionSummary,
  prepareCompaction,
} from '@strata/session';
import {
  type SummaryPurpose,
  type SummaryRequest,
  loadContextTemplates,
  loadSummaryTemplates,
} from '@strata/summarizer';

export interface ChainedCompaction {
  readonly preparation: CompactionReady;
  /** The stored compaction entry (summary with file lists, short summary, details). */
  readonly entry: CompactionEntry;
  /** What the summariser wrote: the history part and, for a split turn, the turn-prefix part. */
  readonly generated: string;
  /** The root→leaf path the compaction was made on (without the compaction entry). */
  readonly path: readonly SessionEntry[];
}

export interface ChainOptions {
  readonly keepRecentTokens?: number;
  readonly reserveTokens?: number;
  readonly customInstructions?: string;
  /**
   * Compact after these entries (indices into `entries`) instead of at the file's compaction
   * entries; the chain still ends with a compaction at the end.
   */
  readonly after?: readonly number[];
}

function joinedText(blocks: readonly (TextContent | ImageContent)[]): string {
  let text = '';
  for (const block of blocks) if (block.type === 'text') text += block.text;
  return text;
}

/** The text of a user message or a tool result (nothing for other messages or none). */
export function messageText(message: AgentMessage | undefined): string {
  if (message?.role === 'user')
    return typeof message.content === 'string' ? message.content : joinedText(message.content);
  return message?.role === 'toolResult' ? joinedText(message.content) : '';
}

/** The port's purposes, as the engine's adapter names them. */
function portPurpose(request: DomainSummaryRequest, updatesPreviousSummary: boolean): SummaryPurpose {
  if (request.purpose === 'history') return updatesPreviousSummary ? 'update' : 'history';
  if (request.purpose === 'turn-prefix') return 'turn_prefix';
  return request.purpose === 'short-summary' ? 'short' : 'branch';
}

/**
 * Compacts `entries` (a linear session, as parsed) at each of its compaction entries (or after
 * the entries `options.after` names) and at its end, with `summarize` answering every request.
 */
export function chainedCompactions(
  entries: readonly SessionEntry[],
  summarize: (request: SummaryRequest) => string,
  options: ChainOptions = {},
): ChainedCompaction[] {
  const templates = loadSummaryTemplates();
  const contextTemplates = loadContextTemplates();
  const keepRecentTokens = options.keepRecentTokens ?? DEFAULT_COMPACTION_SETTINGS.keepRecentTokens;
  const reserveTokens = options.reserveTokens ?? DEFAULT_COMPACTION_SETTINGS.reserveTokens;
  const path: SessionEntry[] = [];
  const chain: ChainedCompaction[] = [];
  const ask = (request: DomainSummaryRequest, updates: boolean): string =>
    summarize({ ...request, purpose: portPurpose(request, updates) });

  const compact = (): void => {
    const preparation = prepareCompaction(path, { keepRecentTokens }, charsPerFourCounter);
    if (preparation.kind !== 'ready') throw new Error(`compaction skipped: ${preparation.reason}`);
    const plan = buildCompactionRequests(preparation, templates, {
      reserveTokens,
      contextTemplates,
      ...(options.customInstructions !== undefined ? { customInstructions: options.customInstructions } : {}),
    });
    const updates = preparation.previousSummary !== undefined;
    const history =
      plan.history.kind === 'generate' ? ask(plan.history.request, updates) : plan.history.summary;
    const turnPrefix = plan.turnPrefix === undefined ? undefined : ask(plan.turnPrefix, false);
    const generated = mergeCompactionSummary(history, turnPrefix);
    const shortSummary = ask(
      buildShortSummaryRequest(preparation, generated, templates, { reserveTokens, contextTemplates }),
      false,
    );
    const details = computeFileLists(preparation.fileOperations);
    const leaf = path.at(-1);
    if (leaf === undefined) throw new Error('nothing to compact');
    const entry: CompactionEntry = {
      type: 'compaction',
      id: `chained-compaction-${chain.length + 1}`,
      parentId: leaf.id,
      timestamp: leaf.timestamp,
      summary: assembleCompactionSummary(history, turnPrefix, details, templates),
      shortSummary,
      firstKeptEntryId: preparation.firstKeptEntryId,
      tokensBefore: preparation.tokensBefore,
      details,
    };
    chain.push({ preparation, entry, generated, path: [...path] });
    path.push(entry);
  };

  entries.forEach((entry, index) => {
    if (entry.type === 'compaction' && options.after === undefined) compact();
    else if (entry.type !== 'compaction') path.push({ ...entry, parentId: path.at(-1)?.id ?? null });
    if (options.after?.includes(index) === true) compact();
  });
  if (path.at(-1)?.type !== 'compaction') compact();
  return chain;
}
