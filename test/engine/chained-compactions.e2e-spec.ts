// End to end on the real pi session `large-session.jsonl`: three chained compactions with the
// embedded offline summariser (the engine's default), new work appended between them. Every
// file the session modified and the last user request must still be in the final context.
import { readFileSync } from 'node:fs';
import { importSessionFile } from '@strata/session-files';
import {
  computeFileLists,
  convertToLlm,
  fileOperationsOfMessages,
  messageFromEntry,
  serializeConversation,
  type AgentMessage,
  type SessionEntry,
} from '@strata/session';
import { loadContextTemplates, OFFLINE_SUMMARIZER_NAME } from '@strata/summarizer';
import { describeWithFixture } from '@strata/testing';
import { AppendEntriesCommand } from '../../apps/engine/src/sessions/append-entries/append-entries.command';
import { CompactSessionCommand } from '../../apps/engine/src/sessions/compact-session/compact-session.command';
import { startEngine, type EngineHarness } from './engine-harness';

/** Turns appended after each compaction: more than the keep budget, so the next one has work. */
const TURNS_PER_ROUND = 5;

/** One more turn at `parentId`: a request, an edit of one file, its long result, and an answer. */
function workTurn(round: number, turn: number, parentId: string): SessionEntry[] {
  const id = (part: string) => `round-${round}-${turn}-${part}`;
  const file = `docs/round-${round}-${turn}.md`;
  const timestamp = `2025-11-21T0${round}:0${turn}:00.000Z`;
  const assistant = (content: Extract<AgentMessage, { role: 'assistant' }>['content']) =>
    ({
      role: 'assistant',
      content,
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      stopReason: content.some((block) => block.type === 'toolCall') ? 'toolUse' : 'stop',
      timestamp: round,
    }) as const;
  return [
    {
      type: 'message',
      id: id('user'),
      parentId,
      timestamp,
      message: {
        role: 'user',
        content: `Round ${round}, step ${turn}: add a changelog line to ${file}`,
        timestamp: round,
      },
    },
    {
      type: 'message',
      id: id('call'),
      parentId: id('user'),
      timestamp,
      message: assistant([{ type: 'toolCall', id: id('tool'), name: 'edit', arguments: { path: file } }]),
    },
    {
      type: 'message',
      id: id('result'),
      parentId: id('call'),
      timestamp,
      message: {
        role: 'toolResult',
        toolCallId: id('tool'),
        toolName: 'edit',
        content: [{ type: 'text', text: `Edited ${file}\n${'.'.repeat(8000)}` }],
        isError: false,
        timestamp: round,
      },
    },
    {
      type: 'message',
      id: id('answer'),
      parentId: id('result'),
      timestamp,
      message: assistant([{ type: 'text', text: `Step ${turn} of round ${round} is done.` }]),
    },
  ];
}

function userText(message: AgentMessage): string | undefined {
  if (message.role !== 'user') return undefined;
  const { content } = message;
  return typeof content === 'string'
    ? content
    : content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

describeWithFixture(
  'large-session.jsonl',
  'three chained compactions of large-session.jsonl',
  (fixturePath) => {
    let engine: EngineHarness;
    let sessionId: string;

    beforeAll(async () => {
      engine = await startEngine({ settings: { compaction: { keepRecentTokens: 8000 } } });
      const report = await importSessionFile(engine.store, readFileSync(fixturePath, 'utf8'));
      sessionId = report.sessionId;
    });

    afterAll(() => engine.close());

    it('keeps every modified file path and the last user request in the final context', async () => {
      const summaries: string[] = [];
      for (let round = 1; round <= 3; round += 1) {
        const result = await engine.commands.execute(new CompactSessionCommand(sessionId));
        expect(result).toMatchObject({ outcome: 'completed', model: OFFLINE_SUMMARIZER_NAME });
        if (result.outcome === 'completed') summaries.push(result.entry.summary);
        let leafId = (await engine.load(sessionId)).leafId!;
        for (let turn = 0; turn < TURNS_PER_ROUND; turn += 1) {
          const entries = workTurn(round, turn, leafId);
          await engine.commands.execute(new AppendEntriesCommand(sessionId, entries));
          leafId = entries.at(-1)!.id;
        }
      }

      const loaded = await engine.load(sessionId);
      const path = loaded.state.currentPath();
      const everyMessage = path.map(messageFromEntry).filter((message): message is AgentMessage => !!message);
      const { modifiedFiles } = computeFileLists(fileOperationsOfMessages(everyMessage));
      const lastUserRequest = everyMessage
        .map(userText)
        .filter((text): text is string => !!text)
        .at(-1);
      const context = await engine.context(sessionId);
      const contextText = serializeConversation(convertToLlm(context.messages, loadContextTemplates()));

      expect(summaries).toHaveLength(3);
      expect(path.filter((entry) => entry.type === 'compaction')).toHaveLength(3);
      expect(modifiedFiles.length).toBeGreaterThan(3);
      expect(modifiedFiles.filter((file) => !contextText.includes(file))).toEqual([]);
      expect(lastUserRequest).toBe('Round 3, step 4: add a changelog line to docs/round-3-4.md');
      expect(contextText).toContain(lastUserRequest);
      expect(context.messages[0]?.role).toBe('compactionSummary');
    });

    it('keeps the last request of the imported conversation word for word after it was summarised away', async () => {
      const loaded = await engine.load(sessionId);
      const requests = loaded.entries
        .filter((entry) => !entry.id.startsWith('round-'))
        .flatMap((entry) => {
          const message = messageFromEntry(entry);
          const text = message ? userText(message) : undefined;
          return text !== undefined && !text.startsWith('/') ? [{ entryId: entry.id, text }] : [];
        });
      const lastImported = requests.at(-1)!;
      const context = await engine.context(sessionId);
      const contextText = serializeConversation(convertToLlm(context.messages, loadContextTemplates()));

      expect(context.entryIds).not.toContain(lastImported.entryId);
      expect(contextText).toContain(lastImported.text.trim());
    });
  },
);
