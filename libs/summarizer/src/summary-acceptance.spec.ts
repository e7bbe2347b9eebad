import { SummarizerError } from './errors/summarizer-error';
import { acceptSummary } from './summary-acceptance';

const base = { summarizer: 'test', model: 'm' };

function rejectionOf(run: () => unknown): SummarizerError {
  try {
    run();
  } catch (error) {
    if (error instanceof SummarizerError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('a provider answer', () => {
  it('becomes a result when generation stopped normally with text', () => {
    expect(
      acceptSummary({ ...base, text: '## Goal\n- x', end: 'stop', usage: { input: 3, output: 2 } }),
    ).toEqual({
      text: '## Goal\n- x',
      model: 'm',
      stopReason: 'stop',
      usage: { input: 3, output: 2 },
    });
  });

  // Reference §11.1 defect 14: upstream stores a `length`-truncated summary as if it were complete.
  it('is rejected when cut off at the output limit, even with text', () => {
    const error = rejectionOf(() => acceptSummary({ ...base, text: '## Goal\n- half a sen', end: 'length' }));
    expect(error.code).toBe('truncated');
    expect(error.kind).toBe('invalid_response');
  });

  it('is rejected when empty or only whitespace', () => {
    const error = rejectionOf(() => acceptSummary({ ...base, text: ' \n ', end: 'unreported' }));
    expect(error.code).toBe('empty_summary');
  });

  it('is rejected as an overflow when the model ran out of context', () => {
    expect(rejectionOf(() => acceptSummary({ ...base, text: 'x', end: 'context_overflow' })).kind).toBe(
      'overflow',
    );
  });

  it('is rejected when refused or incomplete', () => {
    expect(rejectionOf(() => acceptSummary({ ...base, text: 'x', end: 'refusal' })).code).toBe('refused');
    expect(rejectionOf(() => acceptSummary({ ...base, text: 'x', end: 'incomplete' })).code).toBe(
      'incomplete',
    );
  });
});
