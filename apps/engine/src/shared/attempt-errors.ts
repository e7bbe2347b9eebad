// How an error that ended an attempt is recorded: summariser and domain errors keep their
// stable codes, anything else is `unexpected`.
import { SessionDomainError, type AttemptError } from '@strata/session';
import { isSummarizerError } from '@strata/summarizer';

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function attemptErrorOf(error: unknown): AttemptError {
  if (isSummarizerError(error)) return { message: error.message, code: error.code };
  if (error instanceof SessionDomainError) return { message: error.message, code: error.code };
  return { message: describeError(error), code: 'unexpected' };
}

/** Whether the error means the attempt was aborted. */
export function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (isSummarizerError(error) && error.kind === 'aborted');
}
