// The failures that come from what the user gave (an unknown session or entry, a bad settings
// file, a store that cannot be reached) and not from a fault of Strata: each becomes one line
// naming the thing, with the exit codes of the other commands (2 for a value given wrong, 1 for
// a thing that is not there or not reachable). Anything else still prints its stack: that is a bug.
import { storeUnavailableReason } from '@strata/event-store';
import { SessionNotFoundError } from '@strata/session-files';
import { SessionErasedError, SettingsValidationError } from '@strata/engine';
import { SessionDomainError } from '@strata/session';
import { CliError } from '../cli-io';

/** A store URL fit for a message: never the credentials of an EventStoreDB URL. */
export function describeStoreUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').trim();
}

/** The one-line message of a store that could not serve, or undefined for other errors. */
export function storeUnreachable(error: unknown, storeUrl: string | undefined): CliError | undefined {
  const reason = storeUnavailableReason(error);
  if (reason === undefined) return undefined;
  const store = storeUrl !== undefined ? ` ${describeStoreUrl(storeUrl)}` : '';
  const detail = error instanceof Error ? firstLine(error.message).replace(/[\s:.]+$/, '') : reason;
  // SQLite answers with codes (SQLITE_BUSY, SQLITE_READONLY…): the file is there but cannot serve.
  const verb = reason.startsWith('SQLITE_') || reason === 'closed' ? 'cannot use' : 'cannot reach';
  return new CliError(`${verb} the store${store} (${reason}): ${detail}`);
}

/** The one-line CliError for a user's mistake, or undefined when the error is not one. */
export function userMistake(error: unknown): CliError | undefined {
  if (error instanceof CliError) return error;
  if (error instanceof SessionNotFoundError) return new CliError(error.message);
  if (error instanceof SessionErasedError) return new CliError(error.message);
  if (error instanceof SettingsValidationError)
    return new CliError(`invalid settings in ${error.source}: ${error.problems.join('; ')}`, 2);
  if (error instanceof SessionDomainError) {
    const entryId = error.details['entryId'];
    if (error.code === 'not_found' && typeof entryId === 'string')
      return new CliError(`entry '${entryId}' is not in the session`);
    return new CliError(firstLine(error.message));
  }
  return storeUnreachable(error, undefined);
}
