import {
  ATTEMPT_ABORTED_REASON,
  ATTEMPT_STALE_REASON,
  attemptEndingCommand,
  beginAttempt,
  decideAttempt,
  evolveAttempt,
  type AttemptEffect,
  type AttemptInput,
  type AttemptProgress,
} from './attempt-workflow';

interface Draft {
  readonly summary: string;
  readonly model?: string;
  readonly usage?: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    totalTokens?: number;
  };
}
type Input = AttemptInput<string, Draft>;
type Effect = AttemptEffect<string, Draft>;

const usage = (input: number, output: number) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
});
const failure = { name: 'Error', message: 'the provider said no' };

/** Feeds `inputs` to the workflow from its beginning; answers every effect it asked for. */
function run(
  inputs: readonly Input[],
  options = { maxRounds: 1, alreadyStarted: false },
): { effects: Effect[]; progress: AttemptProgress<string> } {
  const begun = beginAttempt<string, Draft>(options);
  let progress = begun.progress;
  const effects: Effect[] = [begun.effect];
  for (const input of inputs) {
    effects.push(decideAttempt(progress, input));
    progress = evolveAttempt(progress, input);
  }
  return { effects, progress };
}

const ready = (preparation: string): Input => ({ type: 'Prepared', preparation, verdict: { kind: 'ready' } });

describe('the attempt workflow', () => {
  it('prepares, starts, produces and records, then finishes with what the record wrote', () => {
    const draft = { summary: 'S', model: 'm', usage: usage(10, 2) };
    const { effects } = run([
      ready('p1'),
      { type: 'StartStored' },
      { type: 'Produced', draft, aborted: false },
      { type: 'RecordStored', redelivered: false },
    ]);
    expect(effects).toEqual([
      { type: 'Prepare', round: 1 },
      { type: 'AppendStart', preparation: 'p1' },
      { type: 'Produce', preparation: 'p1' },
      { type: 'AppendRecord', preparation: 'p1', draft, spent: { model: 'm', usage: usage(10, 2) } },
      { type: 'Finish', redelivered: false },
    ]);
  });

  it('does not start again an attempt whose start this engine stored before', () => {
    const { effects } = run([ready('p1')], { maxRounds: 1, alreadyStarted: true });
    expect(effects[1]).toEqual({ type: 'Produce', preparation: 'p1' });
  });

  it('starts and ends a skipped attempt in one write, and an already started one ends alone', () => {
    const skip: Input = {
      type: 'Prepared',
      preparation: 'p1',
      verdict: { kind: 'skip', reason: 'disabled' },
    };
    expect(run([skip]).effects[1]).toEqual({
      type: 'AppendEnding',
      ending: { kind: 'skip', reason: 'disabled' },
      spent: {},
      start: 'p1',
    });
    expect(run([skip], { maxRounds: 1, alreadyStarted: true }).effects[1]).toEqual({
      type: 'AppendEnding',
      ending: { kind: 'skip', reason: 'disabled' },
      spent: {},
    });
  });

  it('declines without recording anything', () => {
    const decline: Input = {
      type: 'Prepared',
      preparation: 'p1',
      verdict: { kind: 'decline', reason: 'none' },
    };
    expect(run([decline]).effects[1]).toEqual({ type: 'Decline', reason: 'none' });
  });

  it('leaves to another engine a start it stored first', () => {
    expect(run([ready('p1'), { type: 'StartTakenElsewhere' }]).effects[2]).toEqual({
      type: 'FollowElsewhere',
    });
  });

  it('prepares again after a stale record while rounds are left, adding up what every round spent', () => {
    const first = { summary: 'S1', model: 'a', usage: usage(10, 1) };
    const second = { summary: 'S2', model: 'b', usage: usage(20, 2) };
    const { effects } = run(
      [
        ready('p1'),
        { type: 'StartStored' },
        { type: 'Produced', draft: first, aborted: false },
        { type: 'RecordStale' },
        ready('p2'),
        { type: 'Produced', draft: second, aborted: false },
        { type: 'RecordStale' },
      ],
      { maxRounds: 2, alreadyStarted: false },
    );
    expect(effects[4]).toEqual({ type: 'Prepare', round: 2 });
    // The second round is started: it produces at once, and its record carries both rounds' usage.
    expect(effects[5]).toEqual({ type: 'Produce', preparation: 'p2' });
    expect(effects[6]).toEqual({
      type: 'AppendRecord',
      preparation: 'p2',
      draft: { ...second, usage: usage(30, 3) },
      spent: { model: 'b', usage: usage(30, 3) },
    });
    expect(effects[7]).toEqual({
      type: 'AppendEnding',
      ending: { kind: 'skip', reason: ATTEMPT_STALE_REASON },
      spent: { model: 'b', usage: usage(30, 3) },
    });
  });

  it('keeps a single reported usage as it was reported', () => {
    const reported = { input: 7, output: 1, cacheRead: 0, cacheWrite: 0 };
    const { effects } = run([
      ready('p'),
      { type: 'StartStored' },
      { type: 'Produced', draft: { summary: 'S', usage: reported }, aborted: false },
    ]);
    expect(effects[3]).toMatchObject({ spent: { usage: reported } });
  });

  it('ends cancelled, with what was spent, when the abort signal tripped while the summary was made', () => {
    const draft = { summary: 'S', model: 'm', usage: usage(5, 5) };
    const { effects, progress } = run([
      ready('p'),
      { type: 'StartStored' },
      { type: 'Produced', draft, aborted: true },
    ]);
    expect(effects[3]).toEqual({
      type: 'AppendEnding',
      ending: { kind: 'cancel', reason: ATTEMPT_ABORTED_REASON },
      spent: { model: 'm', usage: usage(5, 5) },
    });
    expect(progress.ending).toBe(true);
  });

  it("ends cancelled for a hook's cancellation", () => {
    const { effects } = run([
      ready('p'),
      { type: 'StartStored' },
      { type: 'ProductionCancelled', reason: 'hook' },
    ]);
    expect(effects[3]).toEqual({
      type: 'AppendEnding',
      ending: { kind: 'cancel', reason: 'hook' },
      spent: {},
    });
  });

  describe('errors', () => {
    const failed = (over: Partial<Extract<Input, { type: 'Failed' }>> = {}): Input => ({
      type: 'Failed',
      error: failure,
      aborted: false,
      endedElsewhere: false,
      ...over,
    });

    it('are the caller’s before the attempt started', () => {
      expect(run([failed()]).effects[1]).toEqual({ type: 'Raise' });
      expect(run([ready('p'), failed()]).effects[2]).toEqual({ type: 'Raise' });
    });

    it('end a started attempt failed, or cancelled when they are its abort', () => {
      const started = [ready('p'), { type: 'StartStored' } as const];
      expect(run([...started, failed()]).effects[3]).toEqual({
        type: 'AppendEnding',
        ending: { kind: 'fail', error: failure },
        spent: {},
      });
      expect(run([...started, failed({ aborted: true })]).effects[3]).toEqual({
        type: 'AppendEnding',
        ending: { kind: 'cancel', reason: ATTEMPT_ABORTED_REASON },
        spent: {},
      });
    });

    it('finish with the outcome another writer recorded', () => {
      const started = [ready('p'), { type: 'StartStored' } as const];
      expect(run([...started, failed({ endedElsewhere: true })]).effects[3]).toEqual({
        type: 'Finish',
        redelivered: true,
      });
      // The write that would have started and ended a skipped attempt found it ended.
      const skip: Input = { type: 'Prepared', preparation: 'p', verdict: { kind: 'skip', reason: 'x' } };
      expect(run([skip, failed({ endedElsewhere: true })]).effects[2]).toEqual({
        type: 'Finish',
        redelivered: true,
      });
    });

    it('while the ending is written are raised, not answered with another ending', () => {
      const started = [ready('p'), { type: 'StartStored' } as const];
      const { effects } = run([...started, failed(), failed()]);
      expect(effects[3]).toMatchObject({ type: 'AppendEnding' });
      expect(effects[4]).toEqual({ type: 'Raise' });
    });
  });

  it('refuses fewer than one round', () => {
    expect(() => beginAttempt({ maxRounds: 0, alreadyStarted: false })).toThrow(RangeError);
  });

  it.each([
    ['compaction', 'skip', 'SkipCompaction'],
    ['compaction', 'cancel', 'CancelCompaction'],
    ['branch_summary', 'skip', 'SkipBranchSummary'],
    ['branch_summary', 'cancel', 'CancelBranchSummary'],
  ] as const)('names the %s ending %s as %s', (kind, how, type) => {
    expect(
      attemptEndingCommand(kind, 'a1', { kind: how, reason: 'r' }, { durationMs: 3, model: 'm' }),
    ).toEqual({
      type,
      data: { attemptId: 'a1', reason: 'r', durationMs: 3, model: 'm' },
    });
  });

  it('records the error of a failed ending', () => {
    expect(
      attemptEndingCommand('branch_summary', 'a1', { kind: 'fail', error: failure }, { durationMs: 0 }),
    ).toEqual({
      type: 'FailBranchSummary',
      data: { attemptId: 'a1', error: failure, durationMs: 0 },
    });
    expect(
      attemptEndingCommand('compaction', 'a1', { kind: 'fail', error: failure }, { durationMs: 0 }).type,
    ).toBe('FailCompaction');
  });
});
