// The offline summariser through chains of compactions of the real pi session
// `before-compaction.jsonl` (../shared/fixtures/pi), made as the engine makes them (libs/testing
// chained-compactions.ts): the facts it writes must be true of the file.
import {
  type AgentMessage,
  type SessionEntry,
  TURN_CONTEXT_HEADING,
  computeFileLists,
  fileListsOf,
  fileOperationsOfMessages,
  messageFromEntry,
  parseSessionFile,
} from '@strata/session';
import {
  chainedCompactions,
  describeWithFixture,
  messageText,
  readPiFixture,
  session,
} from '@strata/testing';
import { offlineSummary } from './offline-extractive-summarizer';
import { REQUESTED_FOCUS_HEADING, REQUESTED_FOCUS_NOTICE } from './render-summary';

const FIXTURE = 'before-compaction.jsonl';

/** The lines listed under `heading` (`### Blocked`), in every part of a summary. */
function itemsUnder(summary: string, heading: string): string[] {
  const items: string[] = [];
  let inside = false;
  for (const line of summary.split('\n')) {
    if (line.startsWith('#')) inside = line.trim() === heading;
    else if (inside && /^(?:- |\d+\. )/.test(line)) items.push(line);
  }
  return items;
}

/** The messages before the first kept entry of a compaction, on the file's own entries. */
function summarised(entries: readonly SessionEntry[], firstKeptEntryId: string): AgentMessage[] {
  const end = entries.findIndex((entry) => entry.id === firstKeptEntryId);
  return entries
    .slice(0, end)
    .filter((entry) => entry.type !== 'compaction')
    .map(messageFromEntry)
    .filter((message): message is AgentMessage => message !== undefined);
}

describeWithFixture(FIXTURE, `chained offline compactions of ${FIXTURE}`, () => {
  const { entries } = parseSessionFile(readPiFixture(FIXTURE), { mode: 'strict' });
  const chain = chainedCompactions(entries, offlineSummary);

  it('compacts three times where the file did and at its end', () => {
    expect(chain).toHaveLength(3);
  });

  describe('errors', () => {
    // A turn where the assistant lists a folder and a dependency tree, put before a user message
    // of the first summarised span: words like "errors" in file and package names are content.
    const listing = session({ idPrefix: 'listing-' })
      .user('What is in the errors folder, and who pulls in redis-errors?')
      .assistantToolCalls([
        { name: 'bash', arguments: { command: 'ls packages/coding-agent/src/errors' } },
        { name: 'bash', arguments: { command: 'npm ls redis-errors' } },
      ])
      .toolResult('bash', 'errors.ts\nindex.ts\nretry-errors.spec.ts')
      .toolResult('bash', 'pi-monorepo@0.0.3 /work\n└─┬ ioredis@5.4.1\n  └── redis-errors@1.2.0')
      .assistant('The folder holds errors.ts and its index; ioredis brings redis-errors.').entries;
    const insertAt = entries.findIndex(
      (entry, index) => index > 150 && entry.type === 'message' && entry.message.role === 'user',
    );
    const withListing = [...entries.slice(0, insertAt), ...listing, ...entries.slice(insertAt)];
    const listingChain = chainedCompactions(withListing, offlineSummary);

    it('lists neither file nor package names from ls or npm ls output as errors or blocked', () => {
      expect(listingChain[0]?.entry.summary).toContain('bash `ls packages/coding-agent/src/errors`');
      for (const { entry } of listingChain) {
        const wrong = [
          ...itemsUnder(entry.summary, '### Errors seen'),
          ...itemsUnder(entry.summary, '### Blocked'),
        ].filter((item) => /errors\.ts|redis-errors@1\.2\.0|retry-errors/.test(item));
        expect(wrong).toEqual([]);
      }
    });

    it('does not take lines grep prints from source code for errors', () => {
      for (const { entry } of chain) {
        const wrong = [
          ...itemsUnder(entry.summary, '### Errors seen'),
          ...itemsUnder(entry.summary, '### Blocked'),
        ].filter((item) => /showError\(errorMessage|errorMessage \+=/.test(item));
        expect(wrong).toEqual([]);
      }
    });

    it("keeps the latest failure pi recorded, in pi's own words", () => {
      for (const { entry, preparation } of chain) {
        const failed = summarised(entries, preparation.firstKeptEntryId)
          .filter((message) => message.role === 'toolResult' && message.isError)
          .at(-1);
        const firstLine = messageText(failed).trim().split('\n')[0] ?? '';
        expect(firstLine.length).toBeGreaterThan(0);
        expect(itemsUnder(entry.summary, '### Errors seen').join('\n')).toContain(firstLine.slice(0, 120));
      }
    });
  });

  describe('failures fixed later', () => {
    /** The result of the last `npm run check` run in the span, and whether it passed. */
    function lastCheckPassed(messages: readonly AgentMessage[]): boolean {
      const checks = new Set<string>();
      for (const message of messages)
        if (message.role === 'assistant')
          for (const block of message.content)
            if (block.type === 'toolCall' && String(block.arguments['command']).includes('npm run check'))
              checks.add(block.id);
      const result = messages
        .filter((message) => message.role === 'toolResult' && checks.has(message.toolCallId))
        .at(-1);
      return (
        result?.role === 'toolResult' && !result.isError && !/error TS|npm error/.test(messageText(result))
      );
    }

    it('leave Blocked once a later check passes, and Next Steps stops asking to resolve them', () => {
      const passedChecks = chain.filter(({ preparation }) =>
        lastCheckPassed(summarised(entries, preparation.firstKeptEntryId)),
      );
      expect(passedChecks.length).toBeGreaterThanOrEqual(2);
      for (const { entry } of passedChecks) {
        expect(
          itemsUnder(entry.summary, '### Blocked').filter((item) => /npm run check|tsgo/.test(item)),
        ).toEqual([]);
      }
      const last = chain.at(-1)?.entry.summary ?? '';
      expect(itemsUnder(last, '### Blocked')).toEqual(['- (none)', '- (none)']);
      expect(last).not.toContain('Resolve the blocked items');
    });

    it('drop the type errors of `npm run check 2>&1 | head -50` that a plain `npm run check` fixed', () => {
      const second = chain[1]?.entry.summary ?? '';
      expect(itemsUnder(second, '### Errors seen').join('\n')).toContain("Cannot find name 'join'");
      expect(itemsUnder(second, '### Blocked').join('\n')).not.toContain("Cannot find name 'join'");
    });
  });

  it('reads the turn-context heading of a split turn back as a heading, never as an item', () => {
    const everyFewHundred = chainedCompactions(entries, offlineSummary, { after: [250, 500, 750] });
    expect(
      everyFewHundred.filter(({ preparation }) => preparation.isSplitTurn).length,
    ).toBeGreaterThanOrEqual(2);
    for (const { entry, preparation } of everyFewHundred) {
      const lines = entry.summary.split('\n');
      expect(lines.filter((line) => line === TURN_CONTEXT_HEADING)).toHaveLength(
        preparation.isSplitTurn ? 1 : 0,
      );
      expect(lines.filter((line) => line.includes('Turn Context') && line !== TURN_CONTEXT_HEADING)).toEqual(
        [],
      );
    }
  });

  describe('custom instructions', () => {
    const focus = 'Focus on the bash execution and pendingMessages';
    const focused = chainedCompactions(entries, offlineSummary, { customInstructions: focus });

    it('are kept word for word, with a notice that they were not followed and the facts that share their words', () => {
      for (const { entry } of focused) {
        expect(entry.summary).toContain(focus);
        const history = entry.summary.slice(0, entry.summary.indexOf(TURN_CONTEXT_HEADING));
        const section = history.slice(history.indexOf(REQUESTED_FOCUS_HEADING));
        expect(section).toContain(REQUESTED_FOCUS_NOTICE);
        expect(section).toContain(`\`\`\`\n${focus}\n\`\`\``);
        const matches = itemsUnder(section, REQUESTED_FOCUS_HEADING);
        expect(matches.length).toBeGreaterThan(0);
        for (const match of matches) expect(match).toMatch(/bash|execution|pendingMessages/i);
      }
    });

    it('change the summary only by that section, and are not carried into the next compaction', () => {
      focused.forEach(({ entry }, index) => {
        const plain = chain[index]?.entry.summary ?? '';
        const parts = entry.summary.split(REQUESTED_FOCUS_HEADING);
        expect(parts).toHaveLength(3);
        expect(plain.startsWith(parts[0] ?? '')).toBe(true);
      });
    });
  });

  it('writes a short summary about the summarised part, naming no file only the kept part touched', () => {
    let keptOnlyFiles = 0;
    for (const { entry, preparation } of chain) {
      const details = fileListsOf(entry) ?? { readFiles: [], modifiedFiles: [] };
      const summarisedFiles = new Set([...details.readFiles, ...details.modifiedFiles]);
      const kept = computeFileLists(fileOperationsOfMessages(preparation.recentMessages));
      keptOnlyFiles += kept.modifiedFiles.filter((path) => !summarisedFiles.has(path)).length;
      const short = entry.shortSummary ?? '';
      const named = [...short.replace(/Latest request: ".*"\.$/, '').matchAll(/`([^`]+)`/g)].map(
        (match) => match[1] ?? '',
      );
      expect(named.length).toBeGreaterThan(0);
      for (const path of named) expect(summarisedFiles).toContain(path);
      const lastSummarised = summarised(entries, preparation.firstKeptEntryId)
        .filter((message) => message.role === 'user')
        .at(-1);
      expect(short).toContain(
        `Latest request: "${messageText(lastSummarised).split('\n')[0]?.slice(0, 100) ?? ''}`,
      );
    }
    expect(keptOnlyFiles).toBeGreaterThan(0);
  });
});
