// Problem details (RFC 9457) for every error the API can meet: the one place where the errors
// of the domain, the store, the projections and the framework are mapped onto the closed set.
import { HttpException } from '@nestjs/common';
import {
  ConcurrencyError,
  AppendTooLargeError,
  DuplicateEventIdError,
  StreamErasedError,
  storeUnavailableReason,
} from '@strata/event-store';
import { SessionImportError, SessionNotFoundError } from '@strata/session-files';
import { ProcessorRunnerStoppedError } from '@strata/processing';
import { TaskPoolStoppedError, TaskQueueFullError } from '@strata/threads';
import { InvalidProjectionQueryError, SessionSetAsideError, UnknownEntryError } from '@strata/projections';
import {
  OriginalFileUnavailableError,
  SessionDomainError,
  SessionImportConflictError,
} from '@strata/session';
import { SettingsValidationError } from '../../settings/settings-validation-error';
import { IdempotencyMismatchError } from '../../shared/idempotency';
import { SessionTooLargeError } from '../../shared/session-size';
import { TenantMismatchError } from '../../shared/command-context';
import { SessionErasedError } from '../../shared/session-erasure';
import { ApiError, problemStatuses, problemTitles, type ProblemCode } from './api-errors';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemDocument {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  /** The request path. */
  readonly instance?: string;
  /** The stable code of the closed set. */
  readonly code: ProblemCode;
  readonly [extension: string]: unknown;
}

export interface MappedProblem {
  readonly document: ProblemDocument;
  readonly headers: Readonly<Record<string, string>>;
  /** True for errors outside the closed set (worth logging). */
  readonly unexpected: boolean;
}

function problem(
  code: ProblemCode,
  detail: string,
  extensions: Readonly<Record<string, unknown>> = {},
  headers: Readonly<Record<string, string>> = {},
): MappedProblem {
  return {
    document: {
      ...extensions,
      type: `/docs#problem-${code}`,
      title: problemTitles[code],
      status: problemStatuses[code],
      detail,
      code,
    },
    headers,
    unexpected: code === 'internal',
  };
}

/**
 * The finer reasons of the domain's conflicts whose details the answer carries as fields, and
 * which fields (only these: the details of other refusals stay internal).
 */
export const domainConflictFields: Readonly<Record<string, readonly string[]>> = {
  leaf_conflict: ['expectedLeafId', 'currentLeafId', 'currentRevision'],
  tool_result_unpaired: ['entryId', 'parentId', 'toolCallId'],
  lease_held: ['holder', 'expiresAt'],
  lease_stale: ['leaseToken'],
  lease_not_held: [],
};

function conflictExtensions(error: SessionDomainError): Record<string, unknown> {
  const { reason } = error.details;
  const fields = typeof reason === 'string' ? domainConflictFields[reason] : undefined;
  if (fields === undefined) return { reason: error.code };
  const extensions: Record<string, unknown> = { reason };
  for (const field of fields) {
    if (error.details[field] !== undefined) extensions[field] = error.details[field];
  }
  return extensions;
}

function fromDomain(error: SessionDomainError): MappedProblem {
  switch (error.code) {
    case 'not_found':
      return problem('not_found', error.message);
    case 'conflict':
    case 'already_exists':
      return problem('conflict', error.message, conflictExtensions(error));
    case 'invalid':
      return problem('validation', error.message);
    default: {
      const unhandled: never = error.code;
      throw new Error(`unhandled session error code ${String(unhandled)}`);
    }
  }
}

const statusCodes: ReadonlyMap<number, ProblemCode> = new Map(
  Object.entries(problemStatuses).map(([code, status]) => [status, code as ProblemCode]),
);

function fromHttpException(error: HttpException): MappedProblem {
  const code = statusCodes.get(error.getStatus()) ?? 'internal';
  const detail =
    code === 'not_found' ? 'no such resource' : code === 'internal' ? 'unexpected error' : error.message;
  return problem(code, detail);
}

/** The problem to answer for `error`. */
export function problemOf(error: unknown): MappedProblem {
  if (error instanceof ApiError) return problem(error.code, error.message, error.extensions, error.headers);
  if (error instanceof SessionDomainError) return fromDomain(error);
  if (error instanceof SessionNotFoundError || error instanceof TenantMismatchError) {
    return problem('not_found', 'session not found');
  }
  if (error instanceof SessionErasedError) {
    return problem('gone', error.message, {
      reason: 'session_erased',
      sessionId: error.sessionId,
      erasure: error.record,
    });
  }
  if (error instanceof StreamErasedError) return problem('not_found', 'the session was erased');
  if (error instanceof UnknownEntryError) return problem('not_found', `entry ${error.entryId} not found`);
  if (error instanceof ConcurrencyError) {
    return problem('conflict', 'the session changed meanwhile; read it again and retry', {
      reason: 'revision_conflict',
      ...(error.actual !== null ? { revision: error.actual.toString() } : {}),
    });
  }
  if (error instanceof DuplicateEventIdError) {
    return problem('conflict', 'an event id of this request is already recorded', {
      reason: 'duplicate_event',
    });
  }
  if (error instanceof AppendTooLargeError) {
    return problem(
      'payload_too_large',
      `the event store takes at most ${error.maxAppendBytes} bytes in one append (its maximum append size); ` +
        'send fewer or smaller entries at a time, or raise the server’s MaxAppendSize',
      { reason: 'append_too_large', maxAppendBytes: error.maxAppendBytes },
    );
  }
  if (error instanceof SessionTooLargeError) {
    return problem('payload_too_large', error.message, {
      reason: 'session_too_large',
      weight: error.weight,
      maxWeight: error.maxWeight,
    });
  }
  if (error instanceof IdempotencyMismatchError) {
    return problem('conflict', error.message, { reason: 'idempotency_mismatch' });
  }
  if (error instanceof SessionImportConflictError) {
    return problem('conflict', error.message, {
      reason: 'import_conflict',
      ...(error.firstDifference !== undefined ? { firstDifference: error.firstDifference } : {}),
      ...(error.storedEntries !== undefined ? { storedEntries: error.storedEntries } : {}),
    });
  }
  if (error instanceof SessionImportError) {
    return problem('validation', error.message, { line: error.line, reason: error.code });
  }
  if (error instanceof OriginalFileUnavailableError) {
    return problem('validation', error.message, { reason: 'no_original_file' });
  }
  if (error instanceof SettingsValidationError) {
    return problem('validation', `invalid settings in ${error.source}`, {
      errors: error.problems.map((message) => ({ path: error.source, message })),
    });
  }
  if (error instanceof InvalidProjectionQueryError) return problem('validation', error.message);
  if (error instanceof SessionSetAsideError) {
    const { event } = error;
    return problem('set_aside', `${error.message}; retrying does not help until it is brought back`, {
      sessionId: error.sessionId,
      projection: event.projection,
      eventId: event.eventId,
      eventType: event.eventType,
      position: event.position.toString(),
      reason: event.reason,
    });
  }
  if (error instanceof ProcessorRunnerStoppedError) {
    return problem('unavailable', 'the read models are stopping', {}, { 'Retry-After': '1' });
  }
  if (error instanceof TaskQueueFullError) {
    return problem(
      'unavailable',
      `${error.message}; nothing was written, retry shortly`,
      { reason: 'workers_busy' },
      { 'Retry-After': '1' },
    );
  }
  if (error instanceof TaskPoolStoppedError) {
    return problem('unavailable', 'the engine is stopping', { reason: 'stopping' }, { 'Retry-After': '1' });
  }
  if (error instanceof HttpException) return fromHttpException(error);
  const storeReason = storeUnavailableReason(error);
  if (storeReason !== undefined) {
    return problem(
      'unavailable',
      'the event store cannot be reached or written right now; nothing was written, retry later',
      { reason: storeReason },
      { 'Retry-After': '5' },
    );
  }
  return problem('internal', 'unexpected error');
}
