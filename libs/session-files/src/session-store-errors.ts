// The failures of moving sessions in and out of the store, each naming what it is about.

/** A session file cannot be imported as it is: the line and why (nothing was written). */
export class SessionImportError extends Error {
  override readonly name = 'SessionImportError';

  constructor(
    /** 1-based line of the file; 0 when the problem is not tied to a line. */
    readonly line: number,
    readonly code: string,
    readonly reason: string,
  ) {
    super(line > 0 ? `line ${line}: ${reason} (${code})` : `${reason} (${code})`);
  }
}

/** No stream holds this session. */
export class SessionNotFoundError extends Error {
  override readonly name = 'SessionNotFoundError';

  constructor(readonly sessionId: string) {
    super(`session ${sessionId} is not in the store`);
  }
}

/** An event read back from a session stream is not a valid session event (a trust boundary). */
export class InvalidStoredEventError extends Error {
  override readonly name = 'InvalidStoredEventError';

  constructor(
    readonly streamId: string,
    readonly revision: bigint,
    readonly eventId: string,
    readonly reason: string,
  ) {
    super(`event ${eventId} at revision ${revision} of ${streamId} is not a valid session event: ${reason}`);
  }
}
