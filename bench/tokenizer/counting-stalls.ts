// The longest event-loop stall while the tokenizer suite counts a large text: at once (random
// letters, as js-tiktoken and the CLI count) and in slices by the engine's prepared counter (each
// hostile shape); as a chart and as a table.
import { COUNTING_SLICE_MS, countO200kTokens, createPreparedTokenCounter } from '@strata/tokenizer';
import { formatMilliseconds, type FigureGroup, type SummaryTable } from '../harness';
import { sizeLabel } from './count-cases';
import { measureLoopStall, type LoopStall } from './loop-stall';
import { hostileShapes, hostileText } from './tokenizer-texts';

export interface StallRow {
  readonly label: string;
  readonly role: 'baseline' | 'subject';
  readonly stall: LoopStall;
}

export function stallFigures(rows: readonly StallRow[], bytes: number): FigureGroup {
  return {
    title: `longest event-loop stall while counting ${sizeLabel(bytes)}`,
    unit: 'ms',
    lowerIsBetter: true,
    inSummary: false,
    rows: rows.map((row) => ({
      label: row.label,
      role: row.role,
      value: row.stall.longestStallMs,
      display: `${row.stall.longestStallMs.toFixed(1)} ms`,
    })),
  };
}

export function stallTable(rows: readonly StallRow[], bytes: number): SummaryTable {
  return {
    title: `Longest event-loop stall while counting ${sizeLabel(bytes)} (a 1 ms timer; slices of ${COUNTING_SLICE_MS} ms)`,
    columns: ['count', 'longest stall', 'duration', 'timer turns'],
    numericColumns: [1, 2, 3],
    rows: rows.map((row) => [
      row.label,
      `${row.stall.longestStallMs.toFixed(1)} ms`,
      formatMilliseconds(row.stall.durationMs),
      String(row.stall.timerTurns),
    ]),
  };
}

export async function measureStalls(bytes: number): Promise<StallRow[]> {
  const rows: StallRow[] = [];
  const letters = hostileText('random-letters', bytes);
  rows.push({
    label: 'at once (random letters), as js-tiktoken and the CLI count',
    role: 'baseline',
    stall: await measureLoopStall(() => countO200kTokens(letters)),
  });
  for (const shape of hostileShapes) {
    const text = hostileText(shape, bytes);
    const counter = createPreparedTokenCounter('o200k');
    rows.push({
      label: `in slices, engine's counter (${shape})`,
      role: 'subject',
      stall: await measureLoopStall(() => counter.countAhead([text])),
    });
  }
  return rows;
}
