import { NotFoundException } from '@nestjs/common';
import { ConcurrencyError, StreamErasedError } from '@strata/event-store';
import { SessionImportError, SessionNotFoundError } from '@strata/session-files';
import { InvalidProjectionQueryError, UnknownEntryError } from '@strata/projections';
import { alreadyExists, conflict, invalid, notFound, SessionImportConflictError } from '@strata/session';
import { SettingsValidationError } from '../../settings/settings-validation-error';
import { TenantMismatchError } from '../../shared/command-context';
import { payloadTooLarge, unauthorized } from './api-errors';
import { problemOf } from './problem-details';

describe('the mapping onto the closed set of problems', () => {
  it.each([
    [invalid('bad'), 'validation', 400],
    [new SessionImportError(3, 'bad-json', 'not JSON'), 'validation', 400],
    [new SettingsValidationError('entry s1', ['compaction.reserveTokens: too small']), 'validation', 400],
    [new InvalidProjectionQueryError('limit'), 'validation', 400],
    [unauthorized('no key'), 'unauthorized', 401],
    [notFound('entry e1 not found'), 'not_found', 404],
    [new SessionNotFoundError('s1'), 'not_found', 404],
    [new TenantMismatchError('session-s1', 'acme', 'globex'), 'not_found', 404],
    [new UnknownEntryError('s1', 'e1'), 'not_found', 404],
    // a write that meets a tombstone the caller's checks did not answer: nothing said of whose
    [new StreamErasedError('session-s1'), 'not_found', 404],
    [new NotFoundException(), 'not_found', 404],
    [conflict('leaf moved'), 'conflict', 409],
    [alreadyExists('entry exists'), 'conflict', 409],
    [new ConcurrencyError('session-s1', 3n, 5n), 'conflict', 409],
    [new SessionImportConflictError('s1', 'entry e2 differs'), 'conflict', 409],
    [payloadTooLarge(1024), 'payload_too_large', 413],
    [new Error('boom'), 'internal', 500],
  ])('%s → %s %i', (error, code, status) => {
    const mapped = problemOf(error);
    expect(mapped.document).toMatchObject({ code, status, type: `/docs#problem-${code}` });
    expect(mapped.unexpected).toBe(code === 'internal');
  });

  it("never tells another tenant's session from a missing one", () => {
    const foreign = problemOf(new TenantMismatchError('session-s1', 'acme', 'globex')).document;
    const missing = problemOf(new SessionNotFoundError('s1')).document;
    expect(foreign).toEqual(missing);
    expect(JSON.stringify(foreign)).not.toContain('acme');
  });

  it('keeps internal details out of unexpected errors', () => {
    expect(problemOf(new Error('SQLITE_CORRUPT at /var/db')).document.detail).toBe('unexpected error');
  });

  it('carries the headers and extensions of API errors', () => {
    expect(problemOf(unauthorized('no key')).headers).toEqual({
      'WWW-Authenticate': 'Bearer realm="strata"',
    });
    expect(problemOf(payloadTooLarge(1024)).document).toMatchObject({ limitBytes: 1024 });
  });
});
