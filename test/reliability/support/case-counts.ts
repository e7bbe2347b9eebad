// Counting the cases a fuzz test ran, per property and per hostile family, and printing them
// when the file ends (docs/reliability.md quotes these numbers). With STRATA_RELIABILITY_COUNTS
// set to a file name, each report is also appended there as one JSON line.
import { appendFileSync } from 'node:fs';

export class CaseCounts {
  private readonly properties = new Map<string, { cases: number; families: Map<string, number> }>();

  constructor(private readonly suite: string) {}

  /** One case of `property` ran, built from the given families (if any). */
  record(property: string, families: readonly string[] = []): void {
    const counts = this.properties.get(property) ?? { cases: 0, families: new Map<string, number>() };
    counts.cases += 1;
    for (const family of new Set(families))
      counts.families.set(family, (counts.families.get(family) ?? 0) + 1);
    this.properties.set(property, counts);
  }

  cases(property: string): number {
    return this.properties.get(property)?.cases ?? 0;
  }

  /** Prints the counts (and appends them to STRATA_RELIABILITY_COUNTS when set). */
  report(): void {
    const lines = [...this.properties].map(([property, counts]) => {
      const families = [...counts.families]
        .sort(([left], [right]) => left.localeCompare(right))
        .map(([family, count]) => `${family} ${count}`)
        .join(', ');
      return `[reliability] ${this.suite} / ${property}: ${counts.cases} cases${families ? ` (${families})` : ''}`;
    });
    process.stdout.write(`${lines.join('\n')}\n`);
    const file = process.env.STRATA_RELIABILITY_COUNTS;
    if (file !== undefined && file !== '') {
      const record = Object.fromEntries(
        [...this.properties].map(([property, counts]) => [
          property,
          { cases: counts.cases, families: Object.fromEntries(counts.families) },
        ]),
      );
      appendFileSync(file, `${JSON.stringify({ suite: this.suite, properties: record })}\n`);
    }
  }
}
