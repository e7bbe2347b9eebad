// Writes a suite's result as `<suite>.json` and `<suite>.svg`, and the Markdown table of all
// suites (`SUMMARY.md`) that bench/README.md copies its figures from.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatMilliseconds, formatPercent, formatRate } from './measure';
import { primaryComparison, type SuiteResult } from './suite';
import { renderSuiteChart } from './svg-chart';

export function writeSuiteResult(result: SuiteResult, directory: string): { json: string; svg: string } {
  fs.mkdirSync(directory, { recursive: true });
  const json = path.join(directory, `${result.suite}.json`);
  const svg = path.join(directory, `${result.suite}.svg`);
  fs.writeFileSync(json, `${JSON.stringify(result, null, 2)}\n`);
  fs.writeFileSync(svg, renderSuiteChart(result));
  return { json, svg };
}

/** Every `*.json` suite result in `directory`, by suite name. */
export function readSuiteResults(directory: string): SuiteResult[] {
  if (!fs.existsSync(directory)) return [];
  return fs
    .readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(fs.readFileSync(path.join(directory, name), 'utf8')) as SuiteResult);
}

/** A Markdown table per suite: group, case, median, p10–p90, throughput, ratio to baseline. */
export function markdownSummary(results: readonly SuiteResult[]): string {
  const lines: string[] = [];
  for (const result of results) {
    lines.push(`### ${result.title} (\`${result.suite}\`)`, '');
    lines.push(
      `Run ${result.startedAt}, ${result.durationSeconds.toFixed(0)} s, commit \`${result.machine.gitCommit.slice(0, 10)}\`, ` +
        `load average ${result.machine.loadAverage.join(' / ')} at the start and ${result.loadAverageAtEnd.join(' / ')} at the end` +
        `${result.quick ? ', **quick run**' : ''}.`,
      '',
    );
    lines.push('| group | case | median | p10 – p90 | n | throughput | vs (first) baseline |');
    lines.push('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
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
    if (result.notices.length > 0) {
      lines.push('', 'Notices:', '', ...result.notices.map((notice) => `- ${notice}`));
    }
    lines.push('');
  }
  return lines.join('\n');
}
