import { type AttemptFailure, type Sleep, summarizeWithCandidates, timerSleep } from './candidates';
import { SummarizerError } from './errors/summarizer-error';
import { AnthropicSummarizer } from './providers/anthropic-summarizer';
import { OpenAiCompatibleSummarizer } from './providers/openai-compatible-summarizer';
import { RemoteEndpointSummarizer } from './providers/remote-endpoint-summarizer';
import type { SummaryRequest } from './summarizer.port';
import { LoopbackServer, hangReply, jsonReply, textReply } from './testing/loopback-server';

const request: SummaryRequest = {
  purpose: 'history',
  systemPrompt: 'You summarise conversations.',
  prompt: '<conversation>\n[User]: hello\n</conversation>\n\nSummarise.',
  maxTokens: 2048,
};

const ok = (summary: string) => jsonReply(200, { summary });

/** A sleep that returns at once and remembers every wait it was asked for. */
function recordingSleep(): { sleep: Sleep; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (milliseconds) => {
      waits.push(milliseconds);
      return Promise.resolve();
    },
  };
}

async function failureOf(promise: Promise<unknown>): Promise<SummarizerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SummarizerError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

describe('summarising over candidate summarisers', () => {
  let first: LoopbackServer;
  let second: LoopbackServer;

  beforeEach(async () => {
    [first, second] = await Promise.all([LoopbackServer.start(), LoopbackServer.start()]);
  });

  afterEach(async () => {
    await Promise.all([first.close(), second.close()]);
  });

  const endpoint = (server: LoopbackServer, name: string) =>
    new RemoteEndpointSummarizer({ url: `${server.origin}/summary`, name });

  describe('given a first candidate that answers', () => {
    it('returns its summary after one attempt', async () => {
      first.script(ok('## Goal\n- greet'));
      const { sleep, waits } = recordingSleep();
      const outcome = await summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, {
        sleep,
      });
      expect(outcome.result.text).toBe('## Goal\n- greet');
      expect(outcome.summarizer.name).toBe('a');
      expect(outcome).toMatchObject({ candidateIndex: 0, attempts: 1 });
      expect(waits).toEqual([]);
      expect(second.requests).toHaveLength(0);
    });
  });

  describe('given a rate-limited first answer', () => {
    it('waits at least the server retry-after before retrying the same candidate', async () => {
      first.script(jsonReply(429, { error: 'slow down' }, { 'retry-after': '5' }), ok('done'));
      const { sleep, waits } = recordingSleep();
      const outcome = await summarizeWithCandidates([endpoint(first, 'a')], request, { sleep });
      expect(waits).toEqual([5000]);
      expect(outcome).toMatchObject({ candidateIndex: 0, attempts: 2 });
      expect(first.requests).toHaveLength(2);
    });

    it('keeps the exponential backoff when the server hint is shorter', async () => {
      first.script(jsonReply(429, { error: 'slow down' }, { 'retry-after-ms': '10' }), ok('done'));
      const { sleep, waits } = recordingSleep();
      await summarizeWithCandidates([endpoint(first, 'a')], request, { sleep });
      expect(waits).toEqual([2000]);
    });

    it('moves on to the next candidate without waiting when the hint is above 30 s', async () => {
      first.script(jsonReply(429, { error: 'quota' }, { 'retry-after': '120' }));
      second.script(ok('from b'));
      const { sleep, waits } = recordingSleep();
      const outcome = await summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, {
        sleep,
      });
      expect(waits).toEqual([]);
      expect(outcome).toMatchObject({ candidateIndex: 1, attempts: 2 });
      expect(outcome.result.text).toBe('from b');
    });

    // Deliberate difference: upstream sleeps out any wait on the last candidate (even hours).
    it('gives up with the rate-limit error when the last candidate asks for more than 30 s', async () => {
      first.script(jsonReply(429, { error: 'quota' }, { 'retry-after': '3600' }));
      const { sleep, waits } = recordingSleep();
      const error = await failureOf(summarizeWithCandidates([endpoint(first, 'a')], request, { sleep }));
      expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 3_600_000 });
      expect(waits).toEqual([]);
    });
  });

  describe('given server errors', () => {
    it('retries with backoff 2 s, 4 s, … and succeeds', async () => {
      first.script(textReply(503, 'unavailable'), textReply(500, 'oops'), ok('third time'));
      const { sleep, waits } = recordingSleep();
      const outcome = await summarizeWithCandidates([endpoint(first, 'a')], request, { sleep });
      expect(waits).toEqual([2000, 4000]);
      expect(outcome).toMatchObject({ attempts: 3 });
    });

    it('tries a candidate at most 1 + maxRetries times, then the next one', async () => {
      first.script(textReply(502, 'bad gateway'));
      second.script(ok('fallback'));
      const { sleep, waits } = recordingSleep();
      const failures: AttemptFailure[] = [];
      const outcome = await summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, {
        sleep,
        onAttemptFailed: (failure) => failures.push(failure),
      });
      expect(first.requests).toHaveLength(4);
      expect(waits).toEqual([2000, 4000, 8000]);
      expect(outcome).toMatchObject({ candidateIndex: 1, attempts: 5 });
      expect(failures.map((failure) => failure.next.action)).toEqual([
        'retry',
        'retry',
        'retry',
        'next_candidate',
      ]);
    });

    it('times every attempt on the given clock: each failure, and the answer with its retry count', async () => {
      first.script(textReply(503, 'unavailable'), ok('second time'));
      let clock = 1_000;
      const ticking = (): number => (clock += 7);
      const failures: AttemptFailure[] = [];
      const outcome = await summarizeWithCandidates([endpoint(first, 'a')], request, {
        sleep: recordingSleep().sleep,
        now: ticking,
        onAttemptFailed: (failure) => failures.push(failure),
      });
      expect(failures).toEqual([expect.objectContaining({ summarizer: 'a', attempt: 0, durationMs: 7 })]);
      expect(outcome).toMatchObject({ attempts: 2, attempt: 1, durationMs: 7 });
    });

    it('does not retry at all when retries are disabled', async () => {
      first.script(textReply(500, 'oops'));
      second.script(ok('fallback'));
      const { sleep, waits } = recordingSleep();
      await summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, {
        sleep,
        retry: { enabled: false },
      });
      expect(first.requests).toHaveLength(1);
      expect(waits).toEqual([]);
    });
  });

  describe('given errors that retrying cannot fix', () => {
    it.each([
      ['401', jsonReply(401, { error: 'bad key' })],
      ['400', jsonReply(400, { error: 'bad request' })],
      ['missing summary', jsonReply(200, { nope: true })],
    ])('moves on after a single %s', async (_label, reply) => {
      first.script(reply);
      second.script(ok('fallback'));
      const { sleep, waits } = recordingSleep();
      const outcome = await summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, {
        sleep,
      });
      expect(first.requests).toHaveLength(1);
      expect(waits).toEqual([]);
      expect(outcome.result.text).toBe('fallback');
    });

    it('does not retry an overflow on the same candidate', async () => {
      first.script(jsonReply(400, { error: 'prompt is too long: 300000 tokens > 200000 maximum' }));
      second.script(ok('bigger model'));
      const { sleep } = recordingSleep();
      const outcome = await summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, {
        sleep,
      });
      expect(first.requests).toHaveLength(1);
      expect(outcome.candidateIndex).toBe(1);
    });

    it('throws the last error when every candidate fails', async () => {
      first.script(jsonReply(401, { error: 'bad key' }));
      second.script(jsonReply(400, { error: 'prompt is too long' }));
      const error = await failureOf(
        summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, recordingSleep()),
      );
      expect(error).toMatchObject({ summarizer: 'b', kind: 'overflow' });
    });

    it('throws no_candidate for an empty list', async () => {
      expect((await failureOf(summarizeWithCandidates([], request))).code).toBe('no_candidate');
    });
  });

  it('asks each distinct candidate once, even when it is listed twice', async () => {
    first.script(jsonReply(401, { error: 'bad key' }));
    second.script(ok('b answered'));
    const a = endpoint(first, 'a');
    const outcome = await summarizeWithCandidates(
      [a, endpoint(first, 'a'), a, endpoint(second, 'b')],
      request,
      recordingSleep(),
    );
    expect(first.requests).toHaveLength(1);
    expect(outcome).toMatchObject({ candidateIndex: 1, attempts: 2 });
  });

  it('falls back across real SDK providers: Anthropic overloaded → OpenAI-compatible answers', async () => {
    first.script(
      jsonReply(529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
    );
    second.script(
      jsonReply(200, {
        id: 'c1',
        object: 'chat.completion',
        created: 1,
        model: 'local',
        choices: [
          { index: 0, message: { role: 'assistant', content: '## Goal\n- x' }, finish_reason: 'stop' },
        ],
      }),
    );
    const anthropic = new AnthropicSummarizer({ apiKey: 'k', model: 'claude-test', baseUrl: first.origin });
    const local = new OpenAiCompatibleSummarizer({
      apiKey: 'k',
      model: 'local',
      baseUrl: `${second.origin}/v1`,
    });
    const { sleep, waits } = recordingSleep();
    const outcome = await summarizeWithCandidates([anthropic, local], request, {
      sleep,
      retry: { maxRetries: 1 },
    });
    expect(first.requests).toHaveLength(2);
    expect(waits).toEqual([2000]);
    expect(outcome.summarizer).toBe(local);
    expect(outcome.attempts).toBe(3);
  });

  describe('when the caller aborts', () => {
    it('does not start at all once the signal has aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const error = await failureOf(
        summarizeWithCandidates([endpoint(first, 'a')], request, { signal: controller.signal }),
      );
      expect(error.kind).toBe('aborted');
      expect(first.requests).toHaveLength(0);
    });

    it('stops mid-request and tries no other candidate', async () => {
      first.script(hangReply);
      second.script(ok('should not be asked'));
      const controller = new AbortController();
      const pending = summarizeWithCandidates([endpoint(first, 'a'), endpoint(second, 'b')], request, {
        signal: controller.signal,
      });
      await first.received(1);
      controller.abort();
      expect((await failureOf(pending)).kind).toBe('aborted');
      expect(second.requests).toHaveLength(0);
    });

    it('stops during the backoff sleep', async () => {
      first.script(textReply(503, 'unavailable'), ok('too late'));
      const controller = new AbortController();
      let sleepStarted: () => void = () => undefined;
      const started = new Promise<void>((resolve) => (sleepStarted = resolve));
      const sleep: Sleep = (milliseconds, signal) => {
        sleepStarted();
        return timerSleep(milliseconds, signal);
      };
      const pending = summarizeWithCandidates([endpoint(first, 'a')], request, {
        signal: controller.signal,
        sleep,
        retry: { baseDelayMs: 20_000 },
      });
      await started;
      controller.abort();
      expect((await failureOf(pending)).kind).toBe('aborted');
      expect(first.requests).toHaveLength(1);
    });
  });
});

describe('the timer sleep', () => {
  it('resolves after the wait', async () => {
    await expect(timerSleep(1)).resolves.toBeUndefined();
  });

  it('rejects at once when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = timerSleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });
});
