// The real pi (@mariozechner/pi-coding-agent 0.73.1, a devDependency) as an oracle for the
// differential tests. pi ships ESM only, so it runs in a child process (pi-reference-worker.mjs)
// and answers over stdin/stdout, one JSON line per request; see the worker for the operations.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { AgentMessage, BashExecutionMessage, SessionEntry } from '@strata/session';

/** pi's context at one leaf; a number stands for the message of the entry at that index. */
export interface PiContext {
  readonly messages: readonly (number | AgentMessage)[];
  readonly thinkingLevel: string;
  readonly model: { readonly provider?: string; readonly modelId?: string } | null;
}

/** The parts of pi's `prepareCompaction` the tests compare. */
export interface PiPreparation {
  readonly firstKeptEntryId: string;
  readonly isSplitTurn: boolean;
  readonly tokensBefore: number;
  readonly previousSummary: string | null;
  readonly messagesToSummarize: number;
  readonly turnPrefixMessages: number;
}

/** A leaf as pi takes it: an entry id, null (before the first entry), or "none given". */
export type PiLeaf = string | null | { readonly last: true };

/** One step of a session written by pi's own SessionManager; entries are named by step index. */
export type PiWriteStep =
  | { readonly kind: 'message'; readonly message: AgentMessage }
  | { readonly kind: 'modelChange'; readonly provider: string; readonly modelId: string }
  | { readonly kind: 'thinkingLevel'; readonly thinkingLevel: string }
  | {
      readonly kind: 'compaction';
      readonly summary: string;
      readonly firstKept: number;
      readonly tokensBefore: number;
      readonly details?: unknown;
      readonly fromHook?: boolean;
    }
  | {
      readonly kind: 'branchSummary';
      readonly from: number | null;
      readonly summary: string;
      readonly details?: unknown;
      readonly fromHook?: boolean;
    }
  | {
      readonly kind: 'customMessage';
      readonly customType: string;
      readonly content: string;
      readonly display: boolean;
      readonly details?: unknown;
    }
  | { readonly kind: 'custom'; readonly customType: string; readonly data?: unknown }
  | { readonly kind: 'label'; readonly target: number; readonly label?: string }
  | { readonly kind: 'branch'; readonly from: number };

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

const workerPath = path.join(__dirname, 'pi-reference-worker.mjs');

export class PiReference {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = '';

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      const answer = JSON.parse(line) as { id: number; result?: unknown; error?: string };
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      if (answer.error !== undefined) waiting.reject(new Error(`pi: ${answer.error}`));
      else waiting.resolve(answer.result);
    });
    child.on('exit', (code, signal) => {
      const reason = new Error(`pi reference exited (${code ?? signal}): ${this.stderr}`);
      for (const waiting of this.pending.values()) waiting.reject(reason);
      this.pending.clear();
    });
  }

  /** Starts the worker; pi loads in well under a second. */
  static start(): PiReference {
    return new PiReference(spawn(process.execPath, [workerPath], { stdio: ['pipe', 'pipe', 'pipe'] }));
  }

  contexts(
    entries: readonly SessionEntry[] | readonly unknown[],
    leaves: readonly PiLeaf[],
  ): Promise<PiContext[]> {
    return this.request('contexts', { entries, leaves }) as Promise<PiContext[]>;
  }

  prepareCompaction(
    entries: readonly SessionEntry[],
    leaves: readonly string[],
    settings: { readonly reserveTokens: number; readonly keepRecentTokens: number },
  ): Promise<(PiPreparation | null)[]> {
    return this.request('prepare', { entries, leaves, settings: { enabled: true, ...settings } }) as Promise<
      (PiPreparation | null)[]
    >;
  }

  /** pi's user-message text of each shell run. */
  bashTexts(messages: readonly BashExecutionMessage[]): Promise<string[]> {
    return this.request('bashTexts', { messages }) as Promise<string[]>;
  }

  /** A session file's objects as pi parses and migrates them, header first. */
  migrate(content: string): Promise<Record<string, unknown>[]> {
    return this.request('migrate', { content }) as Promise<Record<string, unknown>[]>;
  }

  /** Writes a session with pi's SessionManager into `directory`; the ids are by step (null for a branch). */
  write(
    directory: string,
    steps: readonly PiWriteStep[],
  ): Promise<{ readonly file: string; readonly ids: readonly (string | null)[] }> {
    return this.request('write', { directory, cwd: directory, steps }) as Promise<{
      file: string;
      ids: (string | null)[];
    }>;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.stdin.end();
    await exited;
  }

  private request(op: string, payload: Record<string, unknown>): Promise<unknown> {
    const id = this.nextId;
    this.nextId += 1;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ id, op, ...payload })}\n`);
    });
  }
}
