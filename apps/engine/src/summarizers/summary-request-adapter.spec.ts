import { addUsage, isBoundedUsage, MAX_TOKEN_FIGURE } from '@strata/session';
import { toPortRequest, toSessionUsage } from './summary-request-adapter';

describe('the summary request adapter', () => {
  const request = { systemPrompt: 'S', prompt: 'P', maxTokens: 100 };

  it.each([
    ['history', false, 'history'],
    ['history', true, 'update'],
    ['turn-prefix', false, 'turn_prefix'],
    ['short-summary', false, 'short'],
    ['branch', false, 'branch'],
  ] as const)(
    'maps the domain purpose %s (update: %s) to the port purpose %s',
    (purpose, update, expected) => {
      expect(toPortRequest({ ...request, purpose }, { updatesPreviousSummary: update })).toEqual({
        ...request,
        purpose: expected,
      });
    },
  );

  it('passes the custom instructions on, so that the offline summariser can say what it did with them', () => {
    expect(
      toPortRequest(
        { ...request, purpose: 'history', customInstructions: 'the parser' },
        { updatesPreviousSummary: false },
      ),
    ).toEqual({ ...request, purpose: 'history', customInstructions: 'the parser' });
  });

  it("brings a provider's figures into the bounds of a usage record, and their sums too", () => {
    const reported = toSessionUsage({ input: 1e308, output: -3 });
    expect(reported).toEqual({
      input: MAX_TOKEN_FIGURE,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: MAX_TOKEN_FIGURE,
    });
    const sum = addUsage([reported, reported, toSessionUsage({ input: 5, output: 5 })]);
    expect(sum).toMatchObject({ input: MAX_TOKEN_FIGURE, output: 5, totalTokens: MAX_TOKEN_FIGURE });
    expect(isBoundedUsage(sum!)).toBe(true);
  });
});
