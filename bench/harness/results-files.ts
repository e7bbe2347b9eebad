// Writes a suite's result as `<suite>.json` and `<suite>.svg`, and the Markdown table of all
// suites (`SUMMARY.md`) that bench/README.md copies its figures from.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatMilliseconds, formatPercent, formatRate } from './measure';
import {
  figureRatio,
  primaryComparison,
  type FigureGroup,
  type RunRecord,
  type SuiteResult,
  type SummaryTable,
} from './suite';
import { renderSuiteChart } from './svg-chart';

export function writeSuiteResult(result: SuiteResult, directory: string): { json: string; svg: string } {
  fs.mkdirSync(directory, { recursive: true });
  const json = path.join(directory, `${result.suite}.json`);
  const svg = path.join(directory, `${result.suite}.svg`);
  fs.writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(svg, renderSuiteChart(result));
  return { json, svg };
}

const RUN_RECORD_FILE = 'run.json';

/** Every `*.json` suite result in `directory`, by suite name (the run record left out). */
export function readSuiteResults(directory: string): SuiteResult[] {
  if (!fs.existsSync(directory)) return [];
  return fs
    .readdirSync(directory)
    .filter((name) => name.endsWith('.json') && name !== RUN_RECORD_FILE)
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(directory, name), 'utf8')) as SuiteResult);
}

export function writeRunRecord(record: RunRecord, directory: string): string {
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, RUN_RECORD_FILE);
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

/** The record of the last run that wrote into `directory`, if any. */
export function readRunRecord(directory: string): RunRecord | undefined {
  const file = path.join(directory, RUN_RECORD_FILE);
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as RunRecord) : undefined;
}

export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  return whole >= 60
    ? `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`
    : `${whole} s`;
}

function runLines(run: RunRecord): string[] {
  const perSuite = Object.entries(run.secondsPerSuite)
    .map(([suite, seconds]) => `${suite} ${formatDuration(seconds)}`)
    .join(', ');
  return [
    `Last run: \`npm run bench${run.quick ? ' -- --quick' : ''}\` of ${run.suites.join(', ')}, started ${run.startedAt}, ` +
      `**${formatDuration(run.wallSeconds)} wall** (${formatDuration(run.cpuSeconds)} CPU of this process; ${perSuite}) on ` +
      `${run.cpuCount} cores, load average ${run.loadAverageAtStart.join(' / ')} at the start and ` +
      `${run.loadAverageAtEnd.join(' / ')} at the end` +
      `${run.failedSuites.length > 0 ? `; FAILED: ${run.failedSuites.join(', ')}` : ''}.`,
    '',
  ];
}

function figureLines(group: FigureGroup): string[] {
  const lines = [
    `**${group.title}** (${group.unit}, ${group.lowerIsBetter ? 'lower' : 'higher'} is better)`,
    '',
    '| case | value | vs (first) baseline |',
    '| --- | ---: | ---: |',
  ];
  for (const row of group.rows) {
    const ratio = figureRatio(group, row);
    const times = ratio === undefined ? '' : `×${ratio.toPrecision(3)}`;
    const versus =
      row.role === 'baseline' ? (ratio === undefined ? 'baseline' : `baseline (${times})`) : times;
    lines.push(`| ${row.label} | ${row.display ?? `${row.value} ${group.unit}`} | ${versus} |`);
  }
  lines.push('');
  return lines;
}

function tableLines(table: SummaryTable): string[] {
  const numeric = new Set(table.numericColumns ?? []);
  return [
    `**${table.title}**`,
    '',
    `| ${table.columns.join(' | ')} |`,
    `| ${table.columns.map((_, index) => (numeric.has(index) ? '---:' : '---')).join(' | ')} |`,
    ...table.rows.map((row) => `| ${row.join(' | ')} |`),
    '',
  ];
}

/**
 * A Markdown table per suite (group, case, median, p10–p90, throughput, ratio to baseline), then
 * the suite's figure groups and tables; the run record first when there is one.
 */
export function markdownSummary(results: readonly SuiteResult[], run?: RunRecord): string {
  const lines: string[] = run === undefined ? [] : runLines(run);
  for (const result of results) {
    lines.push(`### ${result.title} (\`${result.suite}\`)`, '');
    lines.push(
      `Run ${result.startedAt}, ${result.durationSeconds.toFixed(0)} s, commit \`${result.machine.gitCommit.slice(0, 10)}\`, ` +
        `load average ${result.machine.loadAverage.join(' / ')} at the start and ${result.loadAverageAtEnd.join(' / ')} at the end` +
        `${result.quick ? ', **quick run**' : ''}.`,
      '',
    );
    if (result.cases.length > 0) {
      lines.push('| group | case | median | p10 – p90 | n | throughput | vs (first) baseline |');
      lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
    }
    for (const entry of result.cases) {
      const comparison = primaryComparison(result.comparisons, entry.name);
      const versus =
        entry.role === 'baseline'
          ? 'baseline'
          : comparison === undefined
            ? ''
            : `${formatPercent(comparison.percentOfBaseline)} (×${comparison.speedup.toPrecision(3)})`;
      lines.push(
        `| ${entry.group} | ${entry.label} | ${formatMilliseconds(entry.medianMs)} | ` +
          `${formatMilliseconds(entry.p10Ms)} – ${formatMilliseconds(entry.p90Ms)} | ${entry.iterations} | ` +
          `${formatRate(entry.operationsPerSecond)} ${entry.unit}/s | ${versus} |`,
      );
    }
    if (result.cases.length > 0) lines.push('');
    for (const group of result.figures ?? [])
      if (group.inSummary !== false) lines.push(...figureLines(group));
    for (const table of result.tables ?? []) lines.push(...tableLines(table));
    if (lines[lines.length - 1] === '') lines.pop();
    if (result.notices.length > 0) {
      lines.push('', 'Notices:', '', ...result.notices.map((notice) => `- ${notice}`));
    }
    lines.push('');
  }
  return lines.join('\n');
}
