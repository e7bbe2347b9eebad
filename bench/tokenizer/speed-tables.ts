// The tokenizer suite's speed tables: Strata against js-tiktoken on the fixtures and on runs of
// one character, and Strata on hostile shapes at growing sizes (time against the size before).
import { formatMilliseconds, type CaseResult, type SummaryTable } from '../harness';
import { sizeLabel } from './count-cases';
import type { HostileShape } from './tokenizer-texts';

/** Median time and MB/s per size of each shape, and how the time grew from the size before. */
export function growthTable(results: readonly CaseResult[], shapes: readonly HostileShape[]): SummaryTable {
  const rows: string[][] = [];
  for (const shape of shapes) {
    const ofShape = results.filter((result) => result.group === `growth/${shape}`);
    ofShape.forEach((result, index) => {
      const previous = ofShape[index - 1];
      const bytes = Number(result.details['bytes']);
      const sizeRatio = previous === undefined ? undefined : bytes / Number(previous.details['bytes']);
      const timeRatio = previous === undefined ? undefined : result.medianMs / previous.medianMs;
      rows.push([
        shape,
        sizeLabel(bytes),
        formatMilliseconds(result.medianMs),
        result.operationsPerSecond.toFixed(1),
        sizeRatio === undefined || timeRatio === undefined
          ? ''
          : `×${timeRatio.toFixed(2)} for ×${sizeRatio.toFixed(0)}`,
      ]);
    });
  }
  return {
    title: 'Counting hostile text at growing sizes (Strata o200k, median; time grows with the length)',
    columns: ['shape', 'size', 'median', 'MB/s', 'time vs the size before'],
    numericColumns: [2, 3],
    rows,
  };
}

/** js-tiktoken against Strata on runs of one character and on the fixtures. */
export function comparisonTable(results: readonly CaseResult[]): SummaryTable {
  const groups = [...new Set(results.map((result) => result.group))].filter(
    (group) => !group.startsWith('growth/'),
  );
  return {
    title: 'Strata o200k against js-tiktoken (exact o200k_base, the counter before), median',
    columns: ['text', 'size', 'js-tiktoken', 'Strata', 'speed-up'],
    numericColumns: [2, 3, 4],
    rows: groups.map((group) => {
      const baseline = results.find((result) => result.group === group && result.role === 'baseline');
      const subject = results.find((result) => result.group === group && result.role === 'subject');
      const bytes = Number(subject?.details['bytes'] ?? 0);
      return [
        group,
        sizeLabel(bytes),
        baseline === undefined ? '' : formatMilliseconds(baseline.medianMs),
        subject === undefined ? '' : formatMilliseconds(subject.medianMs),
        baseline === undefined || subject === undefined
          ? ''
          : `×${(baseline.medianMs / subject.medianMs).toPrecision(3)}`,
      ];
    }),
  };
}
