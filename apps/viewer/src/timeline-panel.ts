// The compaction and branch-summary timeline: every attempt the audit recorded (trigger,
// outcome, whether it was forced, tokens before and after, model, duration, usage, who asked and the instructions
// given, every summary call with its candidate, model, usage and duration or error, reason or
// error) joined with the
// entry it wrote (the summary and the file lists), and the compaction and branch-summary entries
// that came in with an imported file, which have no recorded attempt. Oldest first. An imported
// compaction's "tokens after" is measured the way the engine estimates it for its own attempts:
// the tokens of the context built at the compaction entry (asked once per entry).
import type { AuditAttempt, SessionEntry, SessionTree, SummaryCall } from '@strata/client/browser';
import { timelineItems, type TimelineItem } from './timeline-items.js';
import { element, figure, replaceChildren } from './dom.js';
import type { EntryCache } from './entry-cache.js';
import { markdownElement } from './markdown-view.js';
import { formatCount, formatDuration, formatTime } from './previews.js';

/** Where a timeline's "tokens before" comes from, said beside the figure (the comparison estimates its own). */
export const RECORDED_TOKENS_BEFORE_CAPTION = 'Tokens before (recorded: usage)';
const RECORDED_TOKENS_BEFORE_NOTE =
  'As the compaction recorded it: the last answer’s reported usage plus an estimate of the messages after it ' +
  '(an estimate alone when no answer reported usage). The before / after tab estimates both contexts instead.';

export interface TimelineActions {
  compare(compactionId: string): void;
  showInTree(entryId: string): void;
  /** The tokens of the context built at this entry (the context endpoint's `tokens`). */
  contextTokens(entryId: string): Promise<number>;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function fileList(key: string, caption: string, files: readonly string[]): HTMLElement {
  return element('details', { className: 'file-list', dataset: { key } }, [
    element('summary', { text: `${caption} (${files.length})` }),
    files.length === 0
      ? element('p', { className: 'muted', text: 'none' })
      : element(
          'ul',
          {},
          files.map((file) => element('li', { className: 'mono', text: file })),
        ),
  ]);
}

/** One summary call as a line: what for, which candidate (and try), then the answer or the failure. */
function summaryCallText(call: SummaryCall): string {
  const tried = call.retry > 0 ? `${call.summarizer} (retry ${call.retry})` : call.summarizer;
  const result =
    call.error !== null
      ? `failed${call.error.code !== null ? ` (${call.error.code})` : ''}: ${call.error.message}`
      : [
          call.model ?? '—',
          call.usage !== null
            ? `${formatCount(call.usage.input)} in / ${formatCount(call.usage.output)} out`
            : undefined,
        ]
          .filter((part) => part !== undefined)
          .join(' · ');
  return `${call.purpose} · ${tried} → ${result} · ${formatDuration(call.durationMs)}`;
}

function summaryCallList(key: string, attempt: AuditAttempt): HTMLElement {
  const failed = attempt.summaryCalls.filter((call) => call.error !== null).length;
  const count = attempt.summaryCalls.length + attempt.summaryCallsOmitted;
  return element('details', { className: 'summary-calls', dataset: { key } }, [
    element('summary', {
      text: `Summary calls (${count}${failed > 0 ? `, ${failed} failed` : ''})`,
    }),
    element(
      'ol',
      {},
      attempt.summaryCalls.map((call) =>
        element('li', {
          className: `summary-call${call.error !== null ? ' is-failed' : ''}`,
          dataset: { purpose: call.purpose },
          text: summaryCallText(call),
        }),
      ),
    ),
    attempt.summaryCallsOmitted > 0 &&
      element('p', { className: 'muted', text: `${attempt.summaryCallsOmitted} earlier calls not listed` }),
  ]);
}

function tokensBeforeFigure(tokensBefore: number | null): HTMLElement {
  const shown = figure(RECORDED_TOKENS_BEFORE_CAPTION, formatCount(tokensBefore), 'tokens-before');
  shown.title = RECORDED_TOKENS_BEFORE_NOTE;
  shown.dataset['source'] = 'recorded';
  return shown;
}

/** Who started the attempt, and for whom when the caller said. */
function askedBy(attempt: AuditAttempt): string {
  const actor = attempt.actor ?? '—';
  return attempt.onBehalfOf !== null ? `${actor} for ${attempt.onBehalfOf}` : actor;
}

export class TimelinePanel {
  readonly element: HTMLElement;
  private readonly list: HTMLOListElement;
  private readonly status: HTMLElement;
  private items: TimelineItem[] = [];
  private readonly fresh = new Set<string>();
  /** Tokens after each imported compaction, by entry id, once measured. */
  private readonly importedTokensAfter = new Map<string, number>();

  constructor(
    private readonly cache: EntryCache,
    private readonly actions: TimelineActions,
  ) {
    this.status = element('p', { className: 'muted', attributes: { role: 'status' } });
    this.list = element('ol', {
      className: 'timeline',
      attributes: { 'aria-label': 'Compactions and branch summaries' },
    });
    this.element = element('div', { className: 'timeline-panel' }, [this.status, this.list]);
  }

  /** Marks the item of this entry as new (it arrived through the live stream). */
  markFresh(entryId: string): void {
    this.fresh.add(entryId);
  }

  async setData(tree: SessionTree, attempts: readonly AuditAttempt[]): Promise<void> {
    this.items = timelineItems(tree, attempts);
    const indexes = this.items
      .map((item) => item.entryIndex)
      .filter((index): index is number => index !== undefined);
    this.render();
    if (indexes.length > 0) {
      await this.cache.ensure(indexes).catch(() => undefined);
      this.render();
    }
    await this.measureImportedCompactions();
  }

  /** Asks, one at a time, for the tokens after each imported compaction not measured yet. */
  private async measureImportedCompactions(): Promise<void> {
    const unmeasured = this.items.flatMap((item) =>
      item.kind === 'compaction' &&
      item.attempt === undefined &&
      item.entryId !== undefined &&
      !this.importedTokensAfter.has(item.entryId)
        ? [item.entryId]
        : [],
    );
    let measured = 0;
    for (const entryId of unmeasured) {
      try {
        this.importedTokensAfter.set(entryId, await this.actions.contextTokens(entryId));
        measured += 1;
      } catch {
        // The figure stays "—"; the next refresh of the timeline asks again.
      }
    }
    if (measured > 0) this.render();
  }

  private render(): void {
    const compactions = this.items.filter((item) => item.kind === 'compaction').length;
    this.status.textContent =
      this.items.length === 0
        ? 'No compaction or branch summary yet.'
        : `${compactions} compaction${compactions === 1 ? '' : 's'} and ${this.items.length - compactions} branch summar${this.items.length - compactions === 1 ? 'y' : 'ies'} (attempts and their outcomes)`;
    const open = new Set(
      [...this.list.querySelectorAll<HTMLDetailsElement>('details[open]')].map(
        (details) => details.dataset['key'] ?? '',
      ),
    );
    replaceChildren(
      this.list,
      this.items.map((item) => this.itemElement(item)),
    );
    for (const details of this.list.querySelectorAll<HTMLDetailsElement>('details')) {
      if (open.has(details.dataset['key'] ?? '')) details.open = true;
    }
  }

  private itemElement(item: TimelineItem): HTMLElement {
    const { attempt } = item;
    const entry: SessionEntry | undefined =
      item.entryIndex !== undefined ? this.cache.get(item.entryIndex) : undefined;
    const outcome = attempt?.outcome ?? 'imported';
    const details = entry?.['details'] as { readFiles?: unknown; modifiedFiles?: unknown } | undefined;
    const summary = typeof entry?.['summary'] === 'string' ? entry['summary'] : undefined;
    const tokensBefore =
      attempt?.tokensBefore ?? (typeof entry?.['tokensBefore'] === 'number' ? entry['tokensBefore'] : null);
    const tokensAfter =
      attempt !== undefined
        ? attempt.estimatedTokensAfter
        : item.entryId !== undefined
          ? this.importedTokensAfter.get(item.entryId)
          : undefined;
    const title = item.kind === 'compaction' ? 'Compaction' : 'Branch summary';
    const problem = attempt?.error?.message ?? attempt?.reason ?? undefined;
    return element(
      'li',
      {
        className: `timeline-item outcome-${outcome}${item.entryId !== undefined && this.fresh.has(item.entryId) ? ' is-fresh' : ''}`,
        dataset: {
          kind: item.kind,
          outcome,
          ...(item.entryId !== undefined ? { entryId: item.entryId } : {}),
          ...(attempt !== undefined ? { attemptId: attempt.attemptId } : {}),
        },
      },
      [
        element('div', { className: 'timeline-heading' }, [
          element('h3', { text: title }),
          element('span', { className: `outcome-badge outcome-${outcome}`, text: outcome }),
          attempt?.trigger != null && element('span', { className: 'trigger-badge', text: attempt.trigger }),
          attempt?.force === true &&
            element('span', {
              className: 'trigger-badge force-badge',
              dataset: { field: 'force' },
              text: 'forced',
            }),
          element('span', { className: 'muted', text: formatTime(item.timestamp) }),
        ]),
        element('div', { className: 'figures' }, [
          tokensBeforeFigure(tokensBefore),
          figure('Tokens after (estimate)', formatCount(tokensAfter), 'tokens-after'),
          figure('Model', attempt?.model ?? '—', 'model'),
          figure('Duration', formatDuration(attempt?.durationMs), 'duration'),
          figure(
            'Summariser usage',
            attempt?.usage != null
              ? `${formatCount(attempt.usage.input)} in / ${formatCount(attempt.usage.output)} out`
              : '—',
          ),
          attempt !== undefined && figure('Asked by', askedBy(attempt), 'actor'),
        ]),
        problem !== undefined && element('p', { className: 'problem-text', text: problem }),
        attempt?.customInstructions != null &&
          element('div', { className: 'instructions', dataset: { field: 'instructions' } }, [
            element('span', { className: 'figure-caption', text: 'Instructions' }),
            element('p', { className: 'instructions-text', text: attempt.customInstructions }),
          ]),
        attempt !== undefined &&
          attempt.summaryCalls.length > 0 &&
          summaryCallList(`${item.key}:calls`, attempt),
        summary !== undefined &&
          element('details', { className: 'summary-text', dataset: { key: `${item.key}:summary` } }, [
            element('summary', { text: 'Summary' }),
            markdownElement(summary, 'summary-markdown'),
          ]),
        details !== undefined && fileList(`${item.key}:read`, 'Files read', stringList(details.readFiles)),
        details !== undefined &&
          fileList(`${item.key}:modified`, 'Files modified', stringList(details.modifiedFiles)),
        item.entryId !== undefined && this.actionsOf(item.kind, item.entryId),
      ],
    );
  }

  private actionsOf(kind: TimelineItem['kind'], entryId: string): HTMLElement {
    return element('div', { className: 'toolbar' }, [
      kind === 'compaction' &&
        element('button', {
          className: 'button',
          text: 'Compare contexts before / after',
          dataset: { action: 'compare' },
          on: { click: () => this.actions.compare(entryId) },
        }),
      element('button', {
        className: 'button',
        text: 'Show in tree',
        on: { click: () => this.actions.showInTree(entryId) },
      }),
    ]);
  }
}
