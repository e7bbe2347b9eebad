// A bench case of the tokenizer suite: one counter counting one text, measured in MB of text;
// and the size label its tables and titles give a text.
import type { BenchCase } from '../harness';

const megabytesOf = (text: string): number => Buffer.byteLength(text) / 1e6;

export function sizeLabel(bytes: number): string {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(bytes % 1e6 === 0 ? 0 : 1)} MB`;
  return `${(bytes / 1e3).toFixed(0)} kB`;
}

export function countCase(
  group: string,
  role: 'baseline' | 'subject',
  label: string,
  text: string,
  count: (text: string) => number,
): BenchCase<unknown> {
  return {
    name: `${group}/${role === 'baseline' ? 'js-tiktoken' : 'strata'}`,
    group,
    role,
    label,
    unit: 'MB',
    operationsPerIteration: megabytesOf(text),
    details: { bytes: Buffer.byteLength(text) },
    run: () => count(text),
  };
}
