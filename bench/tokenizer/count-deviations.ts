// How far Strata's o200k counts are from exact o200k, per family of texts (the fixtures, ordinary
// texts, runs of one character, long random pieces), with fixed 8 KiB cuts for comparison; and
// the table of the largest differences.
import { countO200kTokens } from '@strata/tokenizer';
import type { SummaryTable } from '../harness';
import { fixedCutCount, jsTiktokenCount, wholePieceCount } from './reference-counters';
import { longPieceAlphabets, longPieces, ordinaryTexts, type NamedText } from './tokenizer-texts';

export interface DeviationRow {
  readonly family: string;
  readonly cases: number;
  readonly bytes: number;
  readonly reference: string;
  readonly strataWorst: number;
  readonly fixedCutWorst: number;
}

function deviationOf(
  family: string,
  texts: readonly string[],
  reference: 'js-tiktoken' | 'whole-piece merge',
): DeviationRow {
  let strataWorst = 0;
  let fixedCutWorst = 0;
  let bytes = 0;
  for (const text of texts) {
    const exact = reference === 'js-tiktoken' ? jsTiktokenCount(text) : wholePieceCount(text);
    strataWorst = Math.max(strataWorst, Math.abs(countO200kTokens(text) - exact));
    fixedCutWorst = Math.max(fixedCutWorst, Math.abs(fixedCutCount(text) - exact));
    bytes += Buffer.byteLength(text);
  }
  return { family, cases: texts.length, bytes, reference, strataWorst, fixedCutWorst };
}

/** Every family's row, the fixtures first. */
export function measureDeviations(
  fixtures: readonly NamedText[],
  longPiecesPerAlphabet: number,
): DeviationRow[] {
  return [
    ...fixtures.map((fixture) => deviationOf(`fixture ${fixture.name}`, [fixture.text], 'js-tiktoken')),
    deviationOf(
      'prose, code, JSON, mixed scripts (20 kB each)',
      ordinaryTexts(20_000).map((text) => text.text),
      'js-tiktoken',
    ),
    deviationOf(
      'runs of x, =, space, 中, "hello" (40 kB each)',
      ['x', '=', ' ', '中', 'hello'].map((unit) => unit.repeat(Math.floor(40_000 / Buffer.byteLength(unit)))),
      'whole-piece merge',
    ),
    ...Object.entries(longPieceAlphabets).map(([name, alphabet], index) =>
      deviationOf(
        `random ${name} (12–60 kB, one piece)`,
        longPieces(alphabet, longPiecesPerAlphabet, index + 1),
        'whole-piece merge',
      ),
    ),
  ];
}

export function deviationTable(rows: readonly DeviationRow[]): SummaryTable {
  return {
    title:
      'Difference from exact o200k (largest |Strata − exact| per family; fixed 8 KiB cuts for comparison)',
    columns: ['texts', 'cases', 'bytes', 'exact by', 'Strata', 'fixed cuts'],
    numericColumns: [1, 2, 4, 5],
    rows: rows.map((row) => [
      row.family,
      String(row.cases),
      row.bytes.toLocaleString('en-GB'),
      row.reference,
      String(row.strataWorst),
      String(row.fixedCutWorst),
    ]),
  };
}
