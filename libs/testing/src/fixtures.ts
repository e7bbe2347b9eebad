// Access to the real pi session files kept outside the repository (`../shared/fixtures/pi`,
// relative to the repository root). They are never copied in; a test that needs one is skipped
// with a notice when it is absent, except under `CI=true`, where its absence is a failure.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The repository root (this file lives in `libs/testing/src`). */
export const repositoryRoot = path.resolve(__dirname, '..', '..', '..');

export const piFixtureDirectory = path.resolve(repositoryRoot, '..', 'shared', 'fixtures', 'pi');

export function piFixturePath(name: string): string {
  return path.join(piFixtureDirectory, name);
}

export function piFixtureExists(name: string): boolean {
  return fs.existsSync(piFixturePath(name));
}

/** The fixture's text (UTF-8). Throws when it is missing; use inside `describeWithFixture`. */
export function readPiFixture(name: string): string {
  return fs.readFileSync(piFixturePath(name), 'utf8');
}

/**
 * A `describe` block that needs the pi fixture `name`. When the file exists, `body` runs with its
 * absolute path. When it is missing: under `CI=true` the block holds one failing test; elsewhere
 * the block is skipped and a notice is logged.
 */
export function describeWithFixture(name: string, title: string, body: (fixturePath: string) => void): void {
  const fixturePath = piFixturePath(name);
  if (fs.existsSync(fixturePath)) {
    describe(title, () => body(fixturePath));
    return;
  }
  if (process.env.CI === 'true') {
    describe(title, () => {
      it(`needs the pi fixture ${name}`, () => {
        throw new Error(`Missing pi fixture ${fixturePath} (required under CI=true)`);
      });
    });
    return;
  }
  console.warn(`Skipping "${title}": pi fixture ${fixturePath} is not present`);
  describe.skip(title, () => {
    it(`needs the pi fixture ${name}`, () => {
      throw new Error(`Missing pi fixture ${fixturePath}`);
    });
  });
}
