import { SummarizerError, kindOf, toSummarizerError } from './summarizer-error';

describe('summariser error codes', () => {
  it('each belong to exactly one kind', () => {
    expect(kindOf('rate_limited')).toBe('retryable');
    expect(kindOf('context_overflow')).toBe('overflow');
    expect(kindOf('aborted')).toBe('aborted');
    expect(kindOf('truncated')).toBe('invalid_response');
    expect(kindOf('authentication_failed')).toBe('fatal');
  });

  it('give the error its kind', () => {
    const error = new SummarizerError({ code: 'missing_summary', message: 'm', summarizer: 's' });
    expect(error.kind).toBe('invalid_response');
    expect(error.summarizer).toBe('s');
  });
});

describe('an arbitrary thrown value', () => {
  it('stays as it is when it is already a summariser error', () => {
    const original = new SummarizerError({ code: 'overloaded', message: 'm', summarizer: 's' });
    expect(toSummarizerError(original, 'other')).toBe(original);
  });

  it('becomes aborted whenever the caller signal has aborted', () => {
    const controller = new AbortController();
    controller.abort();
    expect(toSummarizerError(new Error('whatever'), 's', controller.signal).kind).toBe('aborted');
  });

  it('becomes a timeout when an abort came from elsewhere (our own timer)', () => {
    expect(toSummarizerError(new DOMException('timed out', 'TimeoutError'), 's').code).toBe('timed_out');
  });

  it('becomes a malformed response for a JSON syntax error', () => {
    let thrown: unknown;
    try {
      JSON.parse('{oops');
    } catch (error) {
      thrown = error;
    }
    expect(toSummarizerError(thrown, 's').code).toBe('malformed_response');
  });

  it('becomes a connection failure when fetch failed, looking through causes', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    expect(toSummarizerError(new TypeError('fetch failed', { cause }), 's').code).toBe('connection_failed');
  });

  it('becomes unexpected (fatal) otherwise', () => {
    const error = toSummarizerError('a string', 's');
    expect(error.code).toBe('unexpected');
    expect(error.kind).toBe('fatal');
    expect(error.message).toBe('a string');
  });
});
