// The engine's worker threads for imports: a session file is parsed, checked and (for a new
// session) sealed and encoded on a thread of this pool (session-import.tasks.ts), so a tenant's
// 60 MB file never holds the event loop that answers the others. The pool is the engine's
// (engine-threads.ts): bounded, and a full queue is answered 503 with Retry-After at once.
// Errors of the file come back as SessionImportError.
import { Injectable } from '@nestjs/common';
import { SessionImportError, type PreparedSessionImport } from '@strata/session-files';
import type { SerializedTaskError } from '@strata/threads';
import { join } from 'node:path';
import type { TransferListItem } from 'node:worker_threads';
import { EngineThreads } from '../../api/engine-threads';
import type { EncodeImportArgs, EncodedImportAnswer, ImportFileArgs } from './session-import.tasks';

const TASKS = join(__dirname, `session-import.tasks${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

/** The errors a file can cause on the thread, as the classes the problem details know. */
function reviveImportError(failure: SerializedTaskError): Error | undefined {
  const { line, code, reason } = failure.fields;
  if (
    failure.name === 'SessionImportError' &&
    typeof line === 'number' &&
    typeof code === 'string' &&
    typeof reason === 'string'
  ) {
    return new SessionImportError(line, code, reason);
  }
  if (failure.name === 'RangeError') return new RangeError(failure.message);
  return undefined;
}

/** Moves a body's bytes to the thread when they own their whole buffer (no copy), else copies. */
function transferOf(file: ImportFileArgs['file']): readonly TransferListItem[] {
  if (typeof file === 'string') return [];
  const { buffer } = file;
  const whole = file.byteOffset === 0 && file.byteLength === buffer.byteLength;
  return whole && buffer instanceof ArrayBuffer ? [buffer] : [];
}

@Injectable()
export class SessionImportWork {
  constructor(private readonly threads: EngineThreads) {}

  /**
   * A whole file, weighed, and (when not too heavy) decided, sealed and encoded as a new session.
   * The caller keeps the file for `prepare` when the session turns out to exist by the time the
   * encoded events are written: a file in a SharedArrayBuffer (as the HTTP body is read) is read
   * by the thread where it is, any other is copied to it.
   */
  encode(args: EncodeImportArgs): Promise<EncodedImportAnswer> {
    return this.threads.run(TASKS, 'encodeImportFile', args, {
      metric: 'import_encode',
      revive: reviveImportError,
    });
  }

  /**
   * A file (whole or a part) parsed and checked, for the store to decide against what it holds.
   * The file's bytes are moved to the thread when they own their buffer: the caller gives them up.
   */
  prepare(args: ImportFileArgs): Promise<PreparedSessionImport> {
    return this.threads.run(TASKS, 'prepareImportFile', args, {
      metric: 'import_prepare',
      revive: reviveImportError,
      transfer: transferOf(args.file),
    });
  }
}
