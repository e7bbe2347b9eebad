// The closed set of reasons the session decider refuses a command. Codes are stable: the HTTP
// edge maps them to problem-details statuses, sagas branch on them (an `already_exists` on a
// redelivered command means the work was already recorded).
export const sessionErrorCodes = ['not_found', 'conflict', 'invalid', 'already_exists'] as const;
export type SessionErrorCode = (typeof sessionErrorCodes)[number];

export class SessionDomainError extends Error {
  override readonly name = 'SessionDomainError';

  constructor(
    readonly code: SessionErrorCode,
    message: string,
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export function notFound(message: string, details?: Readonly<Record<string, unknown>>): SessionDomainError {
  return new SessionDomainError('not_found', message, details);
}

export function conflict(message: string, details?: Readonly<Record<string, unknown>>): SessionDomainError {
  return new SessionDomainError('conflict', message, details);
}

export function invalid(message: string, details?: Readonly<Record<string, unknown>>): SessionDomainError {
  return new SessionDomainError('invalid', message, details);
}

export function alreadyExists(
  message: string,
  details?: Readonly<Record<string, unknown>>,
): SessionDomainError {
  return new SessionDomainError('already_exists', message, details);
}
