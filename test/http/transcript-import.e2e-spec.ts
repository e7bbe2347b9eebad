import { readTranscriptSample, transcriptSampleNames } from '@strata/testing';
import { problemOf, startHttpEngine, type HttpHarness } from './http-harness';

interface ContextMessage {
  readonly role: string;
  readonly toolCallId?: string;
  readonly details?: { readonly synthetic?: boolean };
  readonly content?: readonly { readonly type: string; readonly id?: string }[] | string;
}

const formats = {
  'claude-code-tools.jsonl': ['claude-code', '7d3b2f1e-5c4a-4e8b-9a61-2f0c8d9e1a01'],
  'claude-code-compaction.jsonl': ['claude-code', '9e8d7c6b-1111-4222-8333-444455556666'],
  'codex-rollout.jsonl': ['codex', '0199a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b'],
  'codex-legacy-rollout.jsonl': ['codex', '2c9f4a1e-7b3d-4e8a-9f60-1a2b3c4d5e6f'],
} as const;

describe('POST /sessions/import of Claude Code and Codex transcripts', () => {
  let engine: HttpHarness;
  beforeAll(async () => {
    engine = await startHttpEngine();
  });
  afterAll(async () => engine.close());

  it.each(transcriptSampleNames)(
    'imports %s, answers a context that pairs every tool call, and exports the original byte for byte',
    async (name) => {
      const [format, sessionId] = formats[name];
      const bytes = readTranscriptSample(name);
      const query = name === 'codex-rollout.jsonl' ? '?format=codex' : '';
      const imported = await engine.request('POST', `/sessions/import${query}`, {
        rawBody: bytes.toString('utf8'),
        contentType: 'application/x-ndjson',
      });
      expect(imported.status).toBe(201);
      expect(imported.body).toMatchObject({ sessionId, outcome: 'imported', format });

      const context = await engine.request('GET', `/sessions/${sessionId}/context`);
      expect(context.status).toBe(200);
      const { messages } = context.body as { messages: ContextMessage[] };
      const calls = messages.flatMap((message) =>
        message.role === 'assistant' && typeof message.content === 'object'
          ? message.content.flatMap((block) => (block.type === 'toolCall' && block.id ? [block.id] : []))
          : [],
      );
      const results = messages.flatMap((message) =>
        message.role === 'toolResult' && message.toolCallId ? [message.toolCallId] : [],
      );
      expect(calls.length).toBeGreaterThan(0);
      expect(results.sort()).toEqual(calls.sort());
      // A call without its recorded result would be answered by a synthetic one.
      expect(messages.filter((message) => message.details?.synthetic === true)).toEqual([]);

      const original = await engine.request('GET', `/sessions/${sessionId}/export?format=original`);
      expect(original.status).toBe(200);
      expect(Buffer.from(original.text, 'utf8').equals(bytes)).toBe(true);

      const again = await engine.request('POST', '/sessions/import', {
        rawBody: bytes.toString('utf8'),
        contentType: 'application/x-ndjson',
      });
      expect(again.status).toBe(200);
    },
  );

  it('refuses a transcript with a malformed line, naming it, and stores nothing', async () => {
    const lines = readTranscriptSample('codex-rollout.jsonl').toString('utf8').split('\n');
    lines[8] =
      '{"timestamp":"2025-10-20T08:30:07.800Z","type":"response_item","payload":{"type":"function_call"}}';
    const response = await engine.request('POST', '/sessions/import?format=auto', {
      rawBody: lines.join('\n').replace('0199a2b3', '0299a2b3'),
      contentType: 'application/x-ndjson',
    });
    expect(response.status).toBe(400);
    expect(problemOf(response)).toMatchObject({ code: 'validation', line: 9 });
    expect(problemOf(response).detail).toContain('a Codex function_call item');
    const stored = await engine.request('GET', '/sessions/0299a2b3-c4d5-7e6f-8a9b-0c1d2e3f4a5b');
    expect(stored.status).toBe(404);
  });

  it('refuses an unknown format and the original of a session that was not converted', async () => {
    const unknown = await engine.request('POST', '/sessions/import?format=gemini', {
      rawBody: '{}\n',
      contentType: 'application/x-ndjson',
    });
    expect(unknown.status).toBe(400);
    const pi = await engine.request('POST', '/sessions/import', {
      rawBody:
        '{"type":"session","version":3,"id":"pi-http","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}\n',
      contentType: 'application/x-ndjson',
    });
    expect(pi.status).toBe(201);
    const original = await engine.request('GET', '/sessions/pi-http/export?format=original');
    expect(original.status).toBe(400);
    expect(problemOf(original)).toMatchObject({ code: 'validation', reason: 'no_original_file' });
  });
});
