// TEST DOUBLE. A summariser whose answers a test scripts and which records every call
// (STYLE.md habit 14): the model sits behind one injected function, tests script it. It can
// hold calls until the test releases them, so a test can act while a summary is "being made"
// (append entries, navigate, abort) without timing assumptions.
import {
  SummarizerError,
  abortedError,
  type Summarizer,
  type SummaryRequest,
  type SummaryResult,
  type SummaryUsage,
} from '@strata/summarizer';

/** What one call answers: text, a full result, or an error to throw. */
export type ScriptedReply = string | SummaryResult | SummarizerError;

export interface ScriptedCall {
  readonly request: SummaryRequest;
  /** Whether the caller's signal had aborted by the time the call ended. */
  aborted: boolean;
}

export interface ScriptedSummarizerOptions {
  readonly name?: string;
  /** The answer to call number `index` (0-based); a labelled echo of the purpose by default. */
  readonly reply?: (request: SummaryRequest, index: number) => ScriptedReply | Promise<ScriptedReply>;
  readonly usage?: SummaryUsage;
}

export class ScriptedSummarizer implements Summarizer {
  readonly name: string;
  readonly calls: ScriptedCall[] = [];
  private gate: { promise: Promise<void>; release: () => void } | undefined;
  private readonly callWaiters: { count: number; resolve: () => void }[] = [];

  constructor(private readonly options: ScriptedSummarizerOptions = {}) {
    this.name = options.name ?? 'scripted';
  }

  /** Makes the following calls wait until `release()` (or their abort). */
  hold(): void {
    if (this.gate) return;
    let release = (): void => undefined;
    const promise = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.gate = { promise, release };
  }

  /** Lets every held call (and later ones) go on. */
  release(): void {
    this.gate?.release();
    this.gate = undefined;
  }

  /** Resolves once `count` calls have started. */
  whenCalled(count = 1): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.callWaiters.push({ count, resolve }));
  }

  /** The requests of one purpose, in call order. */
  requestsFor(purpose: SummaryRequest['purpose']): SummaryRequest[] {
    return this.calls.map((call) => call.request).filter((request) => request.purpose === purpose);
  }

  async summarize(request: SummaryRequest, signal?: AbortSignal): Promise<SummaryResult> {
    const call: ScriptedCall = { request, aborted: false };
    const index = this.calls.length;
    this.calls.push(call);
    for (const waiter of this.callWaiters.filter((candidate) => candidate.count <= this.calls.length)) {
      this.callWaiters.splice(this.callWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    try {
      if (this.gate) await untilReleasedOrAborted(this.gate.promise, signal, this.name);
      if (signal?.aborted === true) throw abortedError(this.name, signal.reason);
      const reply = this.options.reply
        ? await this.options.reply(request, index)
        : `Scripted ${request.purpose} summary ${index + 1}`;
      if (reply instanceof SummarizerError) throw reply;
      if (typeof reply !== 'string') return reply;
      return {
        text: reply,
        model: this.name,
        stopReason: 'stop',
        ...(this.options.usage !== undefined ? { usage: this.options.usage } : {}),
      };
    } finally {
      call.aborted = signal?.aborted === true;
    }
  }
}

function untilReleasedOrAborted(
  gate: Promise<void>,
  signal: AbortSignal | undefined,
  name: string,
): Promise<void> {
  if (!signal) return gate;
  if (signal.aborted) return Promise.reject(abortedError(name, signal.reason));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(abortedError(name, signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });
    void gate.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
