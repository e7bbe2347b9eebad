import { entryPreview, formatDuration, formatTime, messagePreview } from './previews';

describe('given entries and messages of every kind', () => {
  it('previews text, thinking and tool calls of an assistant message in one line', () => {
    const preview = messagePreview({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'plan\nit' },
        { type: 'text', text: 'Reading it' },
        { type: 'toolCall', id: 't', name: 'read', arguments: { path: 'a.ts' } },
      ],
    });
    expect(preview).toBe('(thinking) plan it Reading it → read({"path":"a.ts"})');
  });

  it('cuts long text with an ellipsis', () => {
    const preview = messagePreview({ role: 'user', content: 'x'.repeat(500) });
    expect(preview.length).toBe(160);
    expect(preview.endsWith('…')).toBe(true);
  });

  it('starts a message entry with its role unless asked not to', () => {
    const entry = {
      type: 'message',
      id: 'a',
      parentId: null,
      timestamp: 't',
      message: { role: 'user', content: 'hi' },
    };
    expect(entryPreview(entry)).toBe('user: hi');
    expect(entryPreview(entry, false)).toBe('hi');
  });

  it('shows a compaction by its tokens before and summary', () => {
    const entry = {
      type: 'compaction',
      id: 'c',
      parentId: 'a',
      timestamp: 't',
      summary: 'Goal',
      tokensBefore: 12345,
      firstKeptEntryId: 'a',
    };
    expect(entryPreview(entry)).toBe('12,345 tokens before · Goal');
  });

  it('formats durations and times', () => {
    expect([
      formatDuration(850),
      formatDuration(12_340),
      formatDuration(245_000),
      formatDuration(null),
    ]).toEqual(['850 ms', '12.3 s', '4 min 5 s', '—']);
    expect(formatTime('2025-11-20T23:33:50.805Z')).toBe('2025-11-20 23:33:50');
  });
});
