import { sessionEntrySchema, type SessionEntry } from '@strata/session';
import { session } from './session-builder';

function messageOf(entry: SessionEntry | undefined) {
  if (entry?.type !== 'message') throw new Error('expected a message entry');
  return entry.message;
}

describe('a session built by the fluent builder', () => {
  const builder = session()
    .modelChange('anthropic/claude-sonnet-4-5')
    .thinkingLevelChange('medium')
    .user('Read the file')
    .assistantToolCalls([
      { name: 'read', arguments: { path: 'a.ts' } },
      { name: 'bash', arguments: { command: 'ls' } },
    ])
    .toolResult('bash', 'a.ts b.ts')
    .toolResult('read', 'content', { isError: true })
    .assistantThinking('hmm', 'done', { usage: { input: 5000 } })
    .bashExecution('npm test', 'ok')
    .customRoleMessage('note', 'remember')
    .customMessage('reminder', 'do it', { display: false })
    .compaction({ firstKeptEntryId: 'e0003', tokensBefore: 1234 })
    .label('e0003', 'start')
    .custom('state', { counter: 1 });

  it('gives sequential ids, a parent chain and timestamps one second apart', () => {
    const entries = builder.entries;
    expect(entries.map((entry) => entry.id).slice(0, 3)).toEqual(['e0001', 'e0002', 'e0003']);
    expect(entries[0]?.parentId).toBeNull();
    expect(entries[1]?.parentId).toBe('e0001');
    expect(entries[0]?.timestamp).toBe('2026-01-01T00:00:01.000Z');
    expect(entries[2]?.timestamp).toBe('2026-01-01T00:00:03.000Z');
    expect(messageOf(entries[2]).timestamp).toBe(Date.parse('2026-01-01T00:00:03.000Z'));
    expect(builder.leafId).toBe(entries[entries.length - 1]?.id);
  });

  it('produces entries the v3 schema accepts', () => {
    for (const entry of builder.entries) expect(sessionEntrySchema.safeParse(entry).success).toBe(true);
  });

  it('answers tool calls by tool name, oldest first', () => {
    const bashResult = messageOf(builder.entries[4]);
    const readResult = messageOf(builder.entries[5]);
    expect(bashResult).toMatchObject({ role: 'toolResult', toolCallId: 'call_0002', isError: false });
    expect(readResult).toMatchObject({ role: 'toolResult', toolCallId: 'call_0001', isError: true });
    expect(messageOf(builder.entries[3])).toMatchObject({ stopReason: 'toolUse' });
  });

  it('applies usage overrides and fills the rest', () => {
    expect(messageOf(builder.entries[6])).toMatchObject({
      stopReason: 'stop',
      usage: { input: 5000, cacheRead: 0, cacheWrite: 0 },
    });
  });
});

describe('a builder moved back with branchFrom', () => {
  it('appends the next entry as a child of the chosen entry', () => {
    const builder = session().user('one').assistant('two').branchFrom('e0001').user('three');
    expect(builder.entries[2]).toMatchObject({ id: 'e0003', parentId: 'e0001' });
    expect(builder.leafId).toBe('e0003');
  });

  it('starts a new root after branchFrom(null)', () => {
    const builder = session().user('one').branchFrom(null).user('two');
    expect(builder.entries[1]?.parentId).toBeNull();
  });

  it('rejects an unknown entry id', () => {
    expect(() => session().user('one').branchFrom('nope')).toThrow(/unknown entry id/);
  });
});

describe('editTurns', () => {
  it('appends whole edit turns, numbered from the first asked for, each call answered', () => {
    const entries = session().editTurns(2, { first: 3, resultLength: 10 }).entries;
    expect(entries).toHaveLength(8);
    const messages = entries.map((entry) => (entry.type === 'message' ? entry.message : undefined));
    expect(messages[0]).toMatchObject({ role: 'user', content: 'Step 3: edit src/module-3.ts' });
    const call = messages[1];
    const result = messages[2];
    expect(call).toMatchObject({
      role: 'assistant',
      content: [{ type: 'toolCall', name: 'edit', arguments: { path: 'src/module-3.ts' } }],
    });
    expect(result).toMatchObject({
      role: 'toolResult',
      toolName: 'edit',
      content: [{ text: 'x'.repeat(10) }],
    });
    const callId =
      call?.role === 'assistant' && call.content[0]?.type === 'toolCall' ? call.content[0].id : '';
    expect(result).toMatchObject({ toolCallId: callId });
    expect(messages[3]).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Done with step 3.' }],
    });
    expect(messages[4]).toMatchObject({ role: 'user', content: 'Step 4: edit src/module-4.ts' });
  });
});
