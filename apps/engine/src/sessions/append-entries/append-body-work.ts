// A large append's body read off the event loop: from `OFF_LOOP_APPEND_BYTES` of declared length
// on, the body is gathered in a SharedArrayBuffer and handed to the engine's worker threads
// (append-body.tasks.ts), which parse and check it, write each entry's texts and count its long
// texts' tokens; back here the counts are taken by the engine's counter, and each
// entry is frozen and its texts remembered (@strata/event-store known-encodings.ts), so the seal
// and the store splice them instead of walking the entry again. A smaller body is read on the
// event loop as before: the trip to a thread costs more than it saves. Refusals are the same
// `validation` problems either way; a full queue of the threads is 503 with Retry-After.
import { Inject, Injectable } from '@nestjs/common';
import { deepFreeze, forgetEncoding, rememberEncoding } from '@strata/event-store';
import { textsToCount } from '@strata/session';
import type { PreparedTokenCounter } from '@strata/tokenizer';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { ENGINE_CONFIG } from '../../api/http-tokens';
import { invalidInput } from '../../api/problem/api-errors';
import {
  declaredBodyBytes,
  readJsonBody,
  readRequestBytes,
  requireJsonMediaType,
} from '../../api/request/request-input';
import { appendEntriesBody } from '../../api/sessions/session-requests.schemas';
import type { EngineConfig } from '../../config/engine-config';
import { EngineThreads } from '../../api/engine-threads';
import { ENGINE_SETTINGS, TOKEN_COUNTER } from '../../shared/injection-tokens';
import type { EngineSettings } from '../../settings/engine-settings.schema';
import type { AppendBody, AppendBodyAnswer, ReadAppendBodyArgs } from './append-body.tasks';

const TASKS = join(__dirname, `append-body.tasks${__filename.endsWith('.ts') ? '.ts' : '.js'}`);

/** The declared body length from which an append's body is read on a worker thread. */
export const OFF_LOOP_APPEND_BYTES = 256 * 1024;

@Injectable()
export class AppendBodyWork {
  constructor(
    private readonly threads: EngineThreads,
    @Inject(ENGINE_CONFIG) private readonly config: EngineConfig,
    @Inject(ENGINE_SETTINGS) private readonly settings: EngineSettings,
    @Inject(TOKEN_COUNTER) private readonly counter: PreparedTokenCounter,
  ) {}

  /** The append's body, checked; its entries frozen with their texts remembered when read off the loop. */
  async read(request: IncomingMessage): Promise<AppendBody> {
    const limit = this.config.jsonBodyLimitBytes;
    if (declaredBodyBytes(request, limit) < OFF_LOOP_APPEND_BYTES) {
      return readJsonBody(request, appendEntriesBody, limit);
    }
    const bytes = await readRequestBytes(request, limit, { shared: true });
    requireJsonMediaType(request);
    const answer = await this.threads.run<AppendBodyAnswer>(
      TASKS,
      'readAppendBody',
      { bytes, counter: this.settings.tokenizer } satisfies ReadAppendBodyArgs,
      { metric: 'append_body' },
    );
    if (!answer.ok) throw invalidInput(answer.message, answer.errors);
    const { entries } = answer.body;
    entries.forEach((entry, index) => {
      const encoding = answer.encodings[index];
      if (encoding !== undefined && encoding !== null) rememberEncoding(deepFreeze(entry), encoding);
    });
    this.counter.rememberCounted(textsToCount(entries), answer.counted);
    return answer.body;
  }

  /** Forgets the texts of a body's entries once its append has ended, written or not. */
  release(body: AppendBody): void {
    for (const entry of body.entries) forgetEncoding(entry);
  }
}
