import fc from 'fast-check';
import type { SummaryPurpose, SummaryRequest } from '../summarizer.port';
import { OfflineExtractiveSummarizer, offlineSummary } from './offline-extractive-summarizer';
import { TURN_CONTEXT_HEADING } from '@strata/session';
import { OFFLINE_SUMMARY_LABEL, REQUESTED_FOCUS_HEADING, REQUESTED_FOCUS_NOTICE } from './render-summary';

const latestRequest = [
  'Now update docs/auth.md with the new behaviour.',
  'Keep it short, and do not touch src/auth/login.ts again.',
  '',
  '```ts',
  'const example = `template`;',
  '```',
].join('\n');

const transcript = [
  '[User]: Fix the failing login test in src/auth/login.spec.ts. Do not change the public API.',
  '[Assistant thinking]: The mock may be stale.',
  '[Assistant]: I will read the test first.',
  '[Assistant tool calls]: read(path="src/auth/login.spec.ts"); read(path="src/auth/mock-store.ts"); bash(command="npm test -- login")',
  '[Tool result]: import { login } from "./login";\nthrow new Error("not a failure, just source text")',
  '[Tool result]: export const store = new Map();',
  "[Tool result]: FAIL src/auth/login.spec.ts\n    TypeError: Cannot read properties of undefined (reading 'token')   \nTests: 1 failed, 3 passed",
  '[Assistant]: The session mock is never reset. I decided to reset it in beforeEach instead of patching login.ts.',
  '[Assistant tool calls]: edit(path="src/auth/login.spec.ts", oldText="a", newText="b"); write(path="src/auth/fixtures/user.json", content="{}")',
  '[Tool result]: Successfully replaced text in src/auth/login.spec.ts.',
  '[Tool result]: Wrote 2 bytes.',
  `[User]: ${latestRequest}`,
  '[Assistant]: Should I also mention the token refresh flow?',
].join('\n\n');

function request(purpose: SummaryPurpose, prompt: string, maxTokens = 13_107): SummaryRequest {
  return { purpose, systemPrompt: 'You summarise conversations.', prompt, maxTokens };
}

function promptWith(conversation: string, previousSummary?: string, context: readonly string[] = []): string {
  let prompt = `<conversation>\n${conversation}\n</conversation>\n\n`;
  if (previousSummary !== undefined)
    prompt += `<previous-summary>\n${previousSummary}\n</previous-summary>\n\n`;
  if (context.length > 0)
    prompt += `<additional-context>\n${context.map((line) => `- ${line}`).join('\n')}\n</additional-context>\n\n`;
  return `${prompt}Summarise the conversation above.`;
}

describe('the offline extractive summariser', () => {
  const summary = offlineSummary(
    request('history', promptWith(transcript, undefined, ['branch: fix/login'])),
  );

  describe('given a first compaction (no previous summary)', () => {
    it('says on its first line that it was made without a language model', () => {
      expect(summary.split('\n')[0]).toBe(OFFLINE_SUMMARY_LABEL);
      expect(OFFLINE_SUMMARY_LABEL).toMatch(/extractive summary made without a language model/i);
    });

    it('has the reference sections in order', () => {
      const headings = summary.split('\n').filter((line) => line.startsWith('#'));
      expect(headings).toEqual([
        '## Goal',
        '## Constraints & Preferences',
        '## Progress',
        '### Done',
        '### In Progress',
        '### Blocked',
        '## Key Decisions',
        '## Next Steps',
        '## Critical Context',
        '### Files read',
        '### Files modified',
        '### Other files mentioned',
        '### Errors seen',
        '### Pending question from the assistant (word for word)',
        '### Notes',
      ]);
    });

    it('keeps the last user request word for word, code fence and all', () => {
      expect(summary).toContain(latestRequest);
      expect(summary).toContain(`\`\`\`\`\n${latestRequest}\n\`\`\`\``);
    });

    it('keeps every path from the tool calls and the paths mentioned in text', () => {
      for (const path of [
        'src/auth/login.spec.ts',
        'src/auth/mock-store.ts',
        'src/auth/fixtures/user.json',
        'docs/auth.md',
        'src/auth/login.ts',
      ]) {
        expect(summary).toContain(`\`${path}\``);
      }
      expect(summary).toContain('### Files read\n- `src/auth/mock-store.ts`\n');
      expect(summary).toMatch(
        /### Files modified\n- `src\/auth\/fixtures\/user.json`\n- `src\/auth\/login.spec.ts`/,
      );
    });

    it('keeps error lines from tool output, trimmed, but not "error" words in file contents', () => {
      expect(summary).toContain("\n- TypeError: Cannot read properties of undefined (reading 'token')\n");
      expect(summary).toContain('\n- Tests: 1 failed, 3 passed\n');
      expect(summary).not.toContain('not a failure, just source text');
    });

    it('lists what was done, the decision, the constraint, and the pending question', () => {
      expect(summary).toContain('- [x] edit `src/auth/login.spec.ts`');
      expect(summary).toContain('- I decided to reset it in beforeEach instead of patching login.ts.');
      expect(summary).toContain('- Do not change the public API.');
      expect(summary).toContain('```\nShould I also mention the token refresh flow?\n```');
      expect(summary).toContain('- branch: fix/login');
    });

    it('is deterministic', () => {
      const again = offlineSummary(
        request('history', promptWith(transcript, undefined, ['branch: fix/login'])),
      );
      expect(again).toBe(summary);
    });
  });

  describe('given a previous summary', () => {
    const laterTranscript = [
      '[User]: Run the linter.',
      '[Assistant tool calls]: bash(command="npm run lint")',
      '[Tool result]: error  no-unused-vars  src/auth/session.ts',
    ].join('\n\n');
    const updated = offlineSummary(request('update', promptWith(laterTranscript, summary)));

    it('keeps the previous file paths and facts and adds the new ones', () => {
      for (const path of [
        'src/auth/login.spec.ts',
        'src/auth/fixtures/user.json',
        'docs/auth.md',
        'src/auth/session.ts',
      ]) {
        expect(updated).toContain(path);
      }
      expect(updated).toContain("TypeError: Cannot read properties of undefined (reading 'token')");
      expect(updated).toContain('- I decided to reset it in beforeEach instead of patching login.ts.');
      expect(updated).toContain('- [x] edit `src/auth/login.spec.ts`');
      expect(updated).toContain('- bash `npm run lint` — error  no-unused-vars  src/auth/session.ts');
    });

    it('makes the new request the latest, keeping the old one as an earlier goal', () => {
      expect(updated).toContain('Latest request (word for word):\n```\nRun the linter.\n```');
      expect(updated).toContain('- Now update docs/auth.md with the new behaviour.');
      const goal = updated.slice(updated.indexOf('## Goal'), updated.indexOf('## Constraints'));
      expect(goal).not.toContain('Keep it short, and do not touch');
    });

    it('drops a pending question once the conversation has moved on', () => {
      expect(updated).not.toContain('token refresh flow?');
    });

    it('accumulates over repeated compactions', () => {
      const third = offlineSummary(
        request(
          'update',
          promptWith(
            '[User]: Thanks.\n\n[Assistant tool calls]: read(path="src/zeta.ts")\n\n[Tool result]: ok\n\n[Assistant]: Done.',
            updated,
          ),
        ),
      );
      for (const path of ['src/auth/login.spec.ts', 'src/auth/session.ts', 'docs/auth.md', 'src/zeta.ts']) {
        expect(third).toContain(path);
      }
      expect(third).toContain('- Run the linter.');
      expect(third.split('\n')[0]).toBe(OFFLINE_SUMMARY_LABEL);
    });

    it('keeps file lists from file-operation tags and headings of a summary written by a model', () => {
      const modelSummary = [
        '## Goal',
        'Ship the exporter.',
        '## Critical Context',
        '- The flag lives in `config/flags.yaml`.',
        '<read-files>\nsrc/export/reader.ts\n</read-files>',
        '<modified-files>\nsrc/export/writer.ts\n</modified-files>',
      ].join('\n');
      const merged = offlineSummary(request('update', promptWith('[User]: continue', modelSummary)));
      expect(merged).toContain('### Files read\n- `src/export/reader.ts`');
      expect(merged).toContain('### Files modified\n- `src/export/writer.ts`');
      expect(merged).toContain('config/flags.yaml');
      expect(merged).toContain('- Ship the exporter.');
    });

    it('reuses the previous summary when the new transcript is empty', () => {
      const reused = offlineSummary(request('update', promptWith('', summary)));
      expect(reused).toContain(latestRequest);
      expect(reused).toContain('```\nShould I also mention the token refresh flow?\n```');
    });
  });

  describe('for the other purposes', () => {
    it('writes the turn-prefix sections', () => {
      const prefix = offlineSummary(
        request(
          'turn_prefix',
          promptWith(
            '[User]: Migrate the store.\n\n[Assistant tool calls]: read(path="libs/store.ts")\n\n[Tool result]: ok',
          ),
          8192,
        ),
      );
      const headings = prefix.split('\n').filter((line) => line.startsWith('## '));
      expect(headings).toEqual(['## Original Request', '## Early Progress', '## Context for Suffix']);
      expect(prefix).toContain('```\nMigrate the store.\n```');
      expect(prefix).toContain('libs/store.ts');
    });

    it('writes the branch sections', () => {
      const branch = offlineSummary(request('branch', promptWith(transcript), 2048));
      const headings = branch.split('\n').filter((line) => line.startsWith('## '));
      expect(headings).toEqual([
        '## Goal',
        '## Constraints & Preferences',
        '## Progress',
        '## Key Decisions',
        '## Next Steps',
      ]);
      expect(branch).toContain(latestRequest);
    });

    it('writes the short summary from the summary it is given, not from the kept messages', () => {
      const kept =
        '[User]: Now the exporter.\n\n[Assistant tool calls]: write(path="src/export/writer.ts", content="x")\n\n[Tool result]: Wrote 1 byte.';
      const short = offlineSummary(request('short', promptWith(kept, summary), 512));
      expect(short).toContain('`src/auth/login.spec.ts`');
      expect(short).not.toContain('src/export/writer.ts');
      expect(short).not.toContain('Now the exporter.');
    });

    it('writes one to three sentences for a short summary, labelled, naming changed files', () => {
      const short = offlineSummary(request('short', promptWith(transcript, summary), 512));
      const sentences = short.split(/(?<=[.!?]["”]?)\s+(?=[A-Z])/);
      expect(sentences.length).toBeGreaterThanOrEqual(1);
      expect(sentences.length).toBeLessThanOrEqual(3);
      expect(short).toMatch(/^Offline extractive summary, made without a language model\./);
      expect(short).toContain('`src/auth/login.spec.ts`');
      expect(short).not.toContain('\n');
    });
  });

  describe('given custom instructions', () => {
    const focused = (purpose: SummaryPurpose, instructions: string): string =>
      offlineSummary({ ...request(purpose, promptWith(transcript)), customInstructions: instructions });

    it('says it does not follow them, keeps them word for word and lists what shares their words', () => {
      for (const purpose of ['history', 'turn_prefix', 'branch'] as const) {
        const text = focused(purpose, 'Focus on the session mock and login.spec.ts');
        const section = text.slice(text.indexOf(REQUESTED_FOCUS_HEADING));
        expect(section).toContain(REQUESTED_FOCUS_NOTICE);
        expect(section).toContain('```\nFocus on the session mock and login.spec.ts\n```');
        expect(section).toContain('- The session mock is never reset.');
        expect(section).toContain('- `src/auth/login.spec.ts`');
        expect(section).not.toContain('Should I also mention');
      }
    });

    it('says so when nothing shares their words', () => {
      expect(focused('history', 'the billing module')).toContain(
        `${REQUESTED_FOCUS_HEADING}\n${REQUESTED_FOCUS_NOTICE}\n\`\`\`\nthe billing module\n\`\`\`\n- (nothing in the conversation shares their words)`,
      );
    });

    it('leave no trace without them, and are not read back from a previous summary', () => {
      expect(summary).not.toContain(REQUESTED_FOCUS_HEADING);
      const later = offlineSummary(
        request('update', promptWith('[User]: go on', focused('history', 'the mock'))),
      );
      expect(later).not.toContain(REQUESTED_FOCUS_HEADING);
      expect(later).not.toContain('the mock\n');
    });
  });

  describe('given a previous split-turn summary', () => {
    const turnPrefix = offlineSummary(
      request('turn_prefix', promptWith('[User]: Also rename the exporter.\n\n[Assistant]: Renaming it.')),
    );
    const historyPart = offlineSummary(
      request(
        'history',
        promptWith(
          '[User]: Fix the lint.\n\n[Assistant tool calls]: bash(command="npm run lint")\n\n[Tool result]: error  no-undef  src/a.ts',
        ),
      ),
    );
    const previous = `${historyPart}\n\n---\n\n${TURN_CONTEXT_HEADING}\n\n${turnPrefix}`;
    const updated = offlineSummary(request('update', promptWith('[User]: go on', previous)));

    it('reads the turn-context heading as a heading, never as an item', () => {
      expect(historyPart).toMatch(/### Errors seen\n- error {2}no-undef {2}src\/a\.ts$/);
      expect(updated).not.toContain('Turn Context');
    });

    it('no longer holds a question the turn answered as pending', () => {
      const asked = offlineSummary(
        request('history', promptWith('[User]: Fix it.\n\n[Assistant]: Shall I push?')),
      );
      expect(asked).toContain('Shall I push?');
      const answered = `${asked}\n\n---\n\n${TURN_CONTEXT_HEADING}\n\n${turnPrefix}`;
      expect(offlineSummary(request('update', promptWith('', answered)))).not.toContain('Shall I push?');
    });

    it("keeps the turn's request as an earlier request", () => {
      expect(updated).toContain('- Also rename the exporter.');
      expect(updated).toContain('- Fix the lint.');
    });
  });

  describe('given a small token budget', () => {
    const manyActions = Array.from(
      { length: 200 },
      (_, index) => `[Assistant tool calls]: read(path="src/module-${index}.ts")\n\n[Tool result]: ok`,
    ).join('\n\n');
    const longRequest = 'Please keep this exact request. '.repeat(40).trim();
    const trimmed = offlineSummary(
      request('history', promptWith(`${manyActions}\n\n[User]: ${longRequest}`), 800),
    );

    it('stays roughly within maxTokens × 4 characters by dropping the oldest list items', () => {
      expect(trimmed.length).toBeLessThanOrEqual(800 * 4);
      expect(trimmed).toMatch(/- \(\d+ earlier items left out\)/);
    });

    it('never cuts the latest user request', () => {
      expect(trimmed).toContain(longRequest);
    });

    it('drops done items before file paths', () => {
      expect(trimmed).toContain('### Done\n- (200 earlier items left out)\n');
      expect(trimmed).toContain('`src/module-99.ts`');
    });
  });

  it('rejects with an aborted error when the signal has already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      new OfflineExtractiveSummarizer().summarize(
        request('history', promptWith(transcript)),
        controller.signal,
      ),
    ).rejects.toMatchObject({ kind: 'aborted' });
  });

  it('resolves with the summary as a result', async () => {
    const result = await new OfflineExtractiveSummarizer().summarize(
      request('history', promptWith(transcript)),
    );
    expect(result).toEqual({
      text: summary.replace('\n### Notes\n- branch: fix/login', ''),
      model: 'offline-extractive',
      stopReason: 'unreported',
    });
  });
});

describe('offline summaries of arbitrary conversations (property)', () => {
  const text = fc
    .string({ minLength: 1, maxLength: 80 })
    .filter((value) => value.trim().length > 0 && !value.includes('\n['));
  const block = fc.oneof(
    text.map((value) => `[User]: ${value}`),
    text.map((value) => `[Assistant]: ${value}`),
    fc
      .tuple(fc.constantFrom('read', 'edit', 'write', 'bash'), text)
      .map(([tool, value]) => `[Assistant tool calls]: ${tool}(path=${JSON.stringify(value)})`),
    text.map((value) => `[Tool result]: ${value}`),
  );
  const purpose = fc.constantFrom<SummaryPurpose>('history', 'update', 'turn_prefix', 'branch');

  it('are deterministic, labelled, and keep the last user request word for word', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 12 }), text, purpose, (blocks, last, chosen) => {
        const lastRequest = last.trim();
        const prompt = promptWith([...blocks, `[User]: ${lastRequest}`].join('\n\n'));
        const first = offlineSummary(request(chosen, prompt, 2048));
        expect(offlineSummary(request(chosen, prompt, 2048))).toBe(first);
        expect(first.split('\n')[0]).toBe(OFFLINE_SUMMARY_LABEL);
        expect(first).toContain(lastRequest);
      }),
      { numRuns: 150 },
    );
  });
});
