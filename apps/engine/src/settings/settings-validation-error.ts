// The one error of invalid settings: which source, and every problem as "path: message".
import type { z } from 'zod';

export class SettingsValidationError extends Error {
  override readonly name = 'SettingsValidationError';
  /** Stable code of the closed error set (STYLE.md habit 12). */
  readonly code = 'validation';

  constructor(
    /** Where the settings came from: a file, an environment variable, a session entry. */
    readonly source: string,
    readonly problems: readonly string[],
  ) {
    super(`invalid settings in ${source}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
  }

  static fromZod(source: string, error: z.ZodError): SettingsValidationError {
    return new SettingsValidationError(
      source,
      error.issues.map((issue) => {
        const location = issue.path.length > 0 ? issue.path.map(String).join('.') : '(settings)';
        return `${location}: ${issue.message}`;
      }),
    );
  }
}
