import * as path from 'node:path';
import { piFixturePath, repositoryRoot } from './fixtures';

describe('pi fixture paths', () => {
  it('point to ../shared/fixtures/pi next to the repository root', () => {
    expect(piFixturePath('large-session.jsonl')).toBe(
      path.join(path.dirname(repositoryRoot), 'shared', 'fixtures', 'pi', 'large-session.jsonl'),
    );
  });

  it('take the repository root from the location of the testing library', () => {
    expect(path.join(repositoryRoot, 'libs', 'testing', 'src')).toBe(__dirname);
  });
});
