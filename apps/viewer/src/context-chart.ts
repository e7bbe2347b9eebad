// The chart of a session's page: the context size at each turn (each answer's reported usage,
// GET /sessions/{id}/context-sizes) against the answering model's window and the compaction
// threshold, with every compaction and branch summary marked between the turns it came after.
// Drawn as SVG through svg.ts: every string from the session (models, ids) goes in as text.
import type { ContextSizeMark, ContextSizes, ContextSizeTurn } from '@strata/client/browser';
import { axisTicks, shortCount } from './chart-data.js';
import { element } from './dom.js';
import { formatCount, formatTime } from './previews.js';
import { horizontalGrid, svg, svgText, svgTitle } from './svg.js';

const WIDTH = 760;
const HEIGHT = 240;
const MARGIN = { top: 12, right: 16, bottom: 28, left: 52 } as const;
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;

export interface ContextChartActions {
  /** Shows an entry (a turn's answer, a compaction, a branch summary) in the tree. */
  readonly showInTree: (entryId: string) => void;
}

const markCaptions: Readonly<Record<ContextSizeMark['type'], string>> = {
  compaction: 'Compaction',
  branch_summary: 'Branch summary',
};

/** A step line through (x, y) points: level until the next point's x, halfway between turns. */
function stepPath(points: readonly (readonly [number, number])[], half: number): string {
  return points
    .map(([px, py], position) =>
      position === 0
        ? `M${(px - half).toFixed(1)} ${py.toFixed(1)} H${(px + half).toFixed(1)}`
        : `V${py.toFixed(1)} H${(px + half).toFixed(1)}`,
    )
    .join(' ');
}

function turnTitle(turn: ContextSizeTurn, number: number): string {
  return (
    `Turn ${number}: ${formatCount(turn.contextTokens)} tokens of ${formatCount(turn.contextWindow)} ` +
    `(threshold ${formatCount(turn.threshold)}) · ${turn.model} · ${formatTime(turn.timestamp)}`
  );
}

function markTitle(mark: ContextSizeMark): string {
  const before = mark.tokensBefore !== null ? `, ${formatCount(mark.tokensBefore)} tokens before` : '';
  return `${markCaptions[mark.type]} after turn ${mark.turn}${before} · ${formatTime(mark.timestamp)}`;
}

export function contextSizeChart(sizes: ContextSizes, actions: ContextChartActions): HTMLElement {
  const heading = element('h2', { text: 'Context size by turn' });
  const note = element('p', {
    className: 'muted chart-note',
    text:
      "Tokens each answer's usage reports (input + output + cache reads and writes, as the model counted them), " +
      "against the answering model's context window and the compaction threshold (window − reserve).",
  });
  if (sizes.turns.length === 0) {
    return element('section', { className: 'chart context-chart', dataset: { turns: '0' } }, [
      heading,
      element('p', { className: 'muted', text: 'No answer in this session reports its usage.' }),
    ]);
  }
  const { turns, marks } = sizes;
  const maxValue = Math.max(...turns.flatMap((turn) => [turn.contextTokens, turn.contextWindow]));
  const ticks = axisTicks(maxValue);
  const top = ticks.at(-1) ?? maxValue;
  const step = PLOT_WIDTH / (turns.length + 1);
  const x = (turnNumber: number): number => MARGIN.left + turnNumber * step;
  const y = (tokens: number): number => MARGIN.top + PLOT_HEIGHT - (tokens / top) * PLOT_HEIGHT;
  const half = step / 2;

  const grid = horizontalGrid(ticks, y, MARGIN.left, WIDTH - MARGIN.right, shortCount);
  const every = Math.max(1, Math.ceil(turns.length / 12));
  const turnLabels = turns
    .map((_, position) => position + 1)
    .filter((number) => number === 1 || number % every === 0)
    .map((number) =>
      svgText(String(number), { x: x(number), y: HEIGHT - 8, 'text-anchor': 'middle', class: 'chart-label' }),
    );
  const windowLine = svg('path', {
    d: stepPath(
      turns.map((turn, position) => [x(position + 1), y(turn.contextWindow)]),
      half,
    ),
    class: 'chart-window',
  });
  const thresholdLine = svg('path', {
    d: stepPath(
      turns.map((turn, position) => [x(position + 1), y(turn.threshold)]),
      half,
    ),
    class: 'chart-threshold',
  });
  const contextLine = svg('polyline', {
    points: turns
      .map((turn, position) => `${x(position + 1).toFixed(1)},${y(turn.contextTokens).toFixed(1)}`)
      .join(' '),
    class: 'chart-context',
  });
  const points = turns.map((turn, position) => {
    const point = svg(
      'circle',
      {
        cx: x(position + 1),
        cy: y(turn.contextTokens),
        r: 3.5,
        class: turn.contextTokens > turn.threshold ? 'chart-point over' : 'chart-point',
        'data-turn': position + 1,
        'data-tokens': turn.contextTokens,
        'data-window': turn.contextWindow,
        'data-threshold': turn.threshold,
        'data-entry-id': turn.entryId,
      },
      [svgTitle(turnTitle(turn, position + 1))],
    );
    point.addEventListener('click', () => actions.showInTree(turn.entryId));
    return point;
  });
  const markLines = marks.map((mark) => {
    const at = x(mark.turn + 0.5);
    const line = svg(
      'g',
      {
        class: `chart-mark chart-mark-${mark.type}`,
        'data-type': mark.type,
        'data-after-turn': mark.turn,
        'data-entry-id': mark.entryId,
      },
      [
        svg('line', { x1: at, x2: at, y1: MARGIN.top, y2: MARGIN.top + PLOT_HEIGHT }),
        svg('rect', { x: at - 5, y: MARGIN.top, width: 10, height: PLOT_HEIGHT, class: 'chart-hit' }),
        svgTitle(markTitle(mark)),
      ],
    );
    line.addEventListener('click', () => actions.showInTree(mark.entryId));
    return line;
  });
  const chart = svg(
    'svg',
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-label': `Context size at ${turns.length} turns, with ${marks.length} compactions and branch summaries marked`,
      class: 'chart-svg',
    },
    [...grid, ...turnLabels, windowLine, thresholdLine, ...markLines, contextLine, ...points],
  );
  const models = [...new Set(turns.map((turn) => turn.model))];
  const legend = element('ul', { className: 'chart-legend' }, [
    element('li', { className: 'legend-context', text: 'context tokens (reported usage)' }),
    element('li', { className: 'legend-window', text: 'context window' }),
    element('li', { className: 'legend-threshold', text: 'compaction threshold' }),
    element('li', { className: 'legend-compaction', text: `compaction (${count(marks, 'compaction')})` }),
    element('li', {
      className: 'legend-branch_summary',
      text: `branch summary (${count(marks, 'branch_summary')})`,
    }),
  ]);
  return element('section', { className: 'chart context-chart', dataset: { turns: String(turns.length) } }, [
    heading,
    note,
    chart,
    legend,
    element('p', {
      className: 'muted chart-models',
      text: `Turn = one answer, in append order (every branch). Models: ${models.join(', ')}`,
    }),
  ]);
}

function count(marks: readonly ContextSizeMark[], type: ContextSizeMark['type']): number {
  return marks.filter((mark) => mark.type === type).length;
}
