// The engine's worker threads for imports: a session file is parsed, checked and (for a new
// session) sealed and encoded on a thread of this pool (session-import.tasks.ts), so a tenant's
// 60 MB file never holds the event loop that answers the others. The pool is bounded
// (`STRATA_WORKER_THREADS` threads, `STRATA_WORKER_QUEUE` waiting tasks); a full queue is
// answered 503 with Retry-After at once. Errors of the file come back as SessionImportError.
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { SessionImportError, type PreparedSessionImport } from '@strata/session-files';
import { TaskPool, TaskQueueFullError, type SerializedTaskError } from '@strata/threads';
import { join } from 'node:path';
import type { TransferListItem } from 'node:worker_threads';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import type { EngineConfig } from '../../config/engine-config';
import { EngineMetrics } from '../../observability/engine-metrics.service';
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
export class SessionImportWork implements OnModuleDestroy {
  private readonly pool: TaskPool;

  constructor(
    @Inject(ENGINE_CONFIG) config: EngineConfig,
    private readonly metrics: EngineMetrics,
  ) {
    this.pool = new TaskPool(config.workers);
  }

  private async counted<Result>(task: string, run: () => Promise<Result>): Promise<Result> {
    try {
      const result = await run();
      this.metrics.workerTasks.increment({ task, outcome: 'ok' });
      return result;
    } catch (error) {
      const outcome = error instanceof TaskQueueFullError ? 'refused' : 'failed';
      this.metrics.workerTasks.increment({ task, outcome });
      throw error;
    }
  }

  /**
   * A whole file, weighed, and (when not too heavy) decided, sealed and encoded as a new session.
   * The caller keeps the file for `prepare` when the session turns out to exist by the time the
   * encoded events are written: a file in a SharedArrayBuffer (as the HTTP body is read) is read
   * by the thread where it is, any other is copied to it.
   */
  encode(args: EncodeImportArgs): Promise<EncodedImportAnswer> {
    return this.counted('import_encode', () =>
      this.pool.run(TASKS, 'encodeImportFile', args, { revive: reviveImportError }),
    );
  }

  /**
   * A file (whole or a part) parsed and checked, for the store to decide against what it holds.
   * The file's bytes are moved to the thread when they own their buffer: the caller gives them up.
   */
  prepare(args: ImportFileArgs): Promise<PreparedSessionImport> {
    return this.counted('import_prepare', () =>
      this.pool.run(TASKS, 'prepareImportFile', args, {
        revive: reviveImportError,
        transfer: transferOf(args.file),
      }),
    );
  }

  onModuleDestroy(): Promise<void> {
    return this.pool.close();
  }
}
