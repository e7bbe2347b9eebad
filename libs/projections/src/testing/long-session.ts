// Test support for the context projection's specs: one generated session of about 3,000 entries
// with a compaction, a branch, a branch summary and a label, as a long-lived agent session has,
// and the session files the specs read it back from beside the two pi fixtures.
import { serializeSessionFile } from '@strata/session';
import { SessionBuilder, piFixtureExists, readPiFixture } from '@strata/testing';

export function longSession(): SessionBuilder {
  const builder = new SessionBuilder({ sessionId: 'long-session' });
  builder.editTurns(400);
  const keptFrom = builder.entries[builder.entries.length - 40]?.id ?? '';
  builder.compaction({
    firstKeptEntryId: keptFrom,
    tokensBefore: 90_000,
    summary: 'Edited the first modules.',
  });
  builder.editTurns(300, { first: 400 });
  const branchPoint = builder.entries[builder.entries.length - 10]?.id ?? null;
  builder
    .branchFrom(branchPoint)
    .branchSummary(builder.lastId, 'Tried another path.')
    .editTurns(50, { first: 700 });
  builder.label(builder.lastId, 'checkpoint');
  return builder;
}

/** The pi fixtures (undefined where absent) and the generated long session, as session files. */
export const contextSessionFiles: readonly {
  readonly name: string;
  readonly text: () => string | undefined;
}[] = [
  ...['before-compaction.jsonl', 'large-session.jsonl'].map((name) => ({
    name,
    text: () => (piFixtureExists(name) ? readPiFixture(name) : undefined),
  })),
  {
    name: 'a generated session of 3,000 entries',
    text: () => {
      const builder = longSession();
      return serializeSessionFile(builder.header, builder.entries);
    },
  },
];
