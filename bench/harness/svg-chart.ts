// A small SVG bar chart of one suite: for every group, each case's throughput as a bar next
// to its baseline's, with the p10–p90 spread as a whisker and the ratio to the baseline; then
// the suite's figure groups (memory, latency percentiles), a bar per value next to its baseline.
// Bars are scaled per group (groups measure different things), so compare within a group.
import { formatMilliseconds, formatPercent, formatRate, type CaseResult } from './measure';
import { figureRatio, primaryComparison, type Comparison, type FigureGroup, type SuiteResult } from './suite';

const WIDTH = 1180;
const LABEL_WIDTH = 340;
const BAR_AREA_WIDTH = 420;
const BAR_HEIGHT = 16;
const BAR_GAP = 6;
const GROUP_GAP = 18;
const GROUP_TITLE_HEIGHT = 20;
const HEADER_HEIGHT = 78;
const FONT = 'font-family="Helvetica, Arial, sans-serif"';
const BASELINE_COLOUR = '#9aa0a6';
const SUBJECT_COLOUR = '#1a73e8';

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function groupsInOrder(cases: readonly CaseResult[]): Map<string, CaseResult[]> {
  const groups = new Map<string, CaseResult[]>();
  for (const result of cases) {
    const members = groups.get(result.group) ?? [];
    members.push(result);
    groups.set(result.group, members);
  }
  for (const members of groups.values()) {
    members.sort((left, right) => (left.role === right.role ? 0 : left.role === 'baseline' ? -1 : 1));
  }
  return groups;
}

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${FONT} ${attributes}>${escapeXml(content)}</text>`;
}

function valueLabel(result: CaseResult, comparison: Comparison | undefined): string {
  const figure = `${formatRate(result.operationsPerSecond)} ${result.unit}/s (median ${formatMilliseconds(result.medianMs)})`;
  if (comparison === undefined) return result.role === 'baseline' ? `${figure} · baseline` : figure;
  const ratio =
    comparison.percentOfBaseline < 100
      ? `${formatPercent(comparison.percentOfBaseline)} of baseline`
      : `${comparison.speedup.toFixed(comparison.speedup >= 10 ? 0 : 1)}× baseline`;
  return `${figure} · ${ratio}`;
}

function groupRows(
  members: readonly CaseResult[],
  comparisons: readonly Comparison[],
  top: number,
): { svg: string[]; height: number } {
  const svg: string[] = [];
  const largest = Math.max(...members.map((result) => result.operationsPerSecondP10Time), 1e-9);
  const scale = (rate: number): number =>
    Number.isFinite(rate) ? (rate / largest) * BAR_AREA_WIDTH : BAR_AREA_WIDTH;
  members.forEach((result, index) => {
    const y = top + index * (BAR_HEIGHT + BAR_GAP);
    const colour = result.role === 'baseline' ? BASELINE_COLOUR : SUBJECT_COLOUR;
    const barWidth = Math.max(1, scale(result.operationsPerSecond));
    const middle = y + BAR_HEIGHT / 2;
    svg.push(text(LABEL_WIDTH - 8, middle + 4, result.label, 'font-size="11" text-anchor="end"'));
    svg.push(
      `<rect x="${LABEL_WIDTH}" y="${y}" width="${barWidth.toFixed(1)}" height="${BAR_HEIGHT}" fill="${colour}"/>`,
    );
    const low = LABEL_WIDTH + scale(result.operationsPerSecondP90Time);
    const high = LABEL_WIDTH + scale(result.operationsPerSecondP10Time);
    svg.push(
      `<line x1="${low.toFixed(1)}" y1="${middle}" x2="${high.toFixed(1)}" y2="${middle}" stroke="#202124" stroke-width="1"/>`,
      `<line x1="${low.toFixed(1)}" y1="${middle - 4}" x2="${low.toFixed(1)}" y2="${middle + 4}" stroke="#202124" stroke-width="1"/>`,
      `<line x1="${high.toFixed(1)}" y1="${middle - 4}" x2="${high.toFixed(1)}" y2="${middle + 4}" stroke="#202124" stroke-width="1"/>`,
    );
    const comparison = primaryComparison(comparisons, result.name);
    svg.push(
      text(
        LABEL_WIDTH + BAR_AREA_WIDTH + 10,
        middle + 4,
        valueLabel(result, comparison),
        'font-size="11" fill="#202124"',
      ),
    );
  });
  return { svg, height: members.length * (BAR_HEIGHT + BAR_GAP) };
}

function figureRows(group: FigureGroup, top: number): { svg: string[]; height: number } {
  const svg: string[] = [];
  const largest = Math.max(...group.rows.map((row) => row.value), 1e-9);
  group.rows.forEach((row, index) => {
    const y = top + index * (BAR_HEIGHT + BAR_GAP);
    const middle = y + BAR_HEIGHT / 2;
    const colour = row.role === 'baseline' ? BASELINE_COLOUR : SUBJECT_COLOUR;
    const barWidth = Math.max(1, (row.value / largest) * BAR_AREA_WIDTH);
    const ratio = figureRatio(group, row);
    const figure = row.display ?? `${row.value} ${group.unit}`;
    const label =
      ratio === undefined
        ? `${figure}${row.role === 'baseline' ? ' · baseline' : ''}`
        : `${figure} · ×${ratio.toPrecision(3)} the baseline`;
    svg.push(
      text(LABEL_WIDTH - 8, middle + 4, row.label, 'font-size="11" text-anchor="end"'),
      `<rect x="${LABEL_WIDTH}" y="${y}" width="${barWidth.toFixed(1)}" height="${BAR_HEIGHT}" fill="${colour}"/>`,
      text(LABEL_WIDTH + BAR_AREA_WIDTH + 10, middle + 4, label, 'font-size="11" fill="#202124"'),
    );
  });
  return { svg, height: group.rows.length * (BAR_HEIGHT + BAR_GAP) };
}

/** The chart of a suite result, as a standalone SVG document. */
export function renderSuiteChart(result: SuiteResult): string {
  const body: string[] = [];
  let y = HEADER_HEIGHT;
  for (const [group, members] of groupsInOrder(result.cases)) {
    body.push(text(12, y + 14, group, 'font-size="13" font-weight="bold" fill="#202124"'));
    y += GROUP_TITLE_HEIGHT;
    const rows = groupRows(members, result.comparisons, y);
    body.push(...rows.svg);
    y += rows.height + GROUP_GAP;
  }
  for (const group of result.figures ?? []) {
    const title = `${group.title} (${group.unit}; ${group.lowerIsBetter ? 'shorter' : 'longer'} bar is better)`;
    body.push(text(12, y + 14, title, 'font-size="13" font-weight="bold" fill="#202124"'));
    y += GROUP_TITLE_HEIGHT;
    const rows = figureRows(group, y);
    body.push(...rows.svg);
    y += rows.height + GROUP_GAP;
  }
  if (result.cases.length === 0 && (result.figures ?? []).length === 0) {
    body.push(text(12, y + 14, 'No case ran (see the notices in the JSON file).', 'font-size="13"'));
    y += 40;
  }
  const machine = result.machine;
  const header = [
    text(12, 24, result.title, 'font-size="17" font-weight="bold" fill="#202124"'),
    text(
      12,
      44,
      `${machine.cpuCount} × ${machine.cpuModel}, ${(machine.totalMemoryBytes / 2 ** 30).toFixed(0)} GiB, Node ${machine.nodeVersion}, ` +
        `commit ${machine.gitCommit.slice(0, 10)}${machine.gitDirty === true ? ' (+ local changes)' : ''}, ` +
        `load ${machine.loadAverage.join(' / ')}${result.quick ? ', QUICK RUN' : ''}`,
      'font-size="11" fill="#5f6368"',
    ),
    `<rect x="12" y="54" width="12" height="10" fill="${BASELINE_COLOUR}"/>`,
    text(28, 63, 'baseline', 'font-size="11" fill="#5f6368"'),
    `<rect x="90" y="54" width="12" height="10" fill="${SUBJECT_COLOUR}"/>`,
    text(106, 63, 'Strata', 'font-size="11" fill="#5f6368"'),
    text(
      160,
      63,
      'bar = throughput at the median iteration (longer is better) unless the group title says otherwise; whisker = p90–p10; scaled per group; ratios to the baseline',
      'font-size="11" fill="#5f6368"',
    ),
  ];
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    ...header,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}
