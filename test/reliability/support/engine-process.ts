// The engine as a separate process (`node bin/engine.js`, what `npm start` runs), configured by
// environment like a deployment, so that tests can SIGKILL it at a chosen moment and start it
// again on the same store.
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EngineSettingsInput } from '../../../apps/engine/src/settings/engine-settings.schema';

const repositoryRoot = resolve(__dirname, '..', '..', '..');
const STARTUP_TIMEOUT_MS = 90_000;

export interface EngineProcessOptions {
  /** Where the store (`strata.db`) and the settings file live. */
  readonly directory: string;
  /** The tree whose `bin/engine.js` runs: this repository unless another is named. */
  readonly root?: string;
  readonly settings?: EngineSettingsInput;
  readonly environment?: Readonly<Record<string, string>>;
  /** Told everything the process has written to stderr so far, on each new chunk. */
  readonly onStderr?: (stderr: string) => void;
}

export interface EngineProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** What the process wrote to stdout so far (the start-up message first). */
  stdout(): string;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code or signal once the process has ended. */
  readonly exited: Promise<number | NodeJS.Signals | null>;
  kill(signal: NodeJS.Signals): Promise<number | NodeJS.Signals | null>;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

export function storeFileOf(directory: string): string {
  return join(directory, 'strata.db');
}

/** Starts the engine and resolves once it listens (its start-up message names the port). */
export async function startEngineProcess(options: EngineProcessOptions): Promise<EngineProcess> {
  const settingsFile = join(options.directory, 'settings.json');
  writeFileSync(settingsFile, JSON.stringify({ tokenizer: 'chars4', ...options.settings }));
  const child = spawn(process.execPath, [join(options.root ?? repositoryRoot, 'bin', 'engine.js')], {
    cwd: options.directory,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      STRATA_HOST: '127.0.0.1',
      STRATA_STORE: `sqlite:${storeFileOf(options.directory)}`,
      STRATA_SETTINGS: settingsFile,
      STRATA_LOG_LEVEL: 'warn',
      ...options.environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.onStderr?.(stderr);
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolveExit) =>
    child.once('exit', (code, signal) => resolveExit(signal ?? code)),
  );
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the engine did not start:\n${stderr}`));
    }, STARTUP_TIMEOUT_MS);
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolveUrl(match[1].replace('localhost', '127.0.0.1'));
      }
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`the engine ended (${String(how)}) before it listened:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
    async request(method, path, body) {
      const sent =
        body === undefined
          ? await httpRequest(method, `${url}${path}`)
          : await httpRequest(method, `${url}${path}`, {
              body: JSON.stringify(body),
              contentType: 'application/json',
            });
      let parsed: unknown = sent.text;
      try {
        parsed = JSON.parse(sent.text);
      } catch {
        // not JSON: keep the text
      }
      return { status: sent.status, body: parsed };
    },
  };
}

/**
 * One request on a connection of its own (no keep-alive pool: a restarted engine may listen on
 * the port of a killed one, and a pooled socket to that one would fail the request).
 */
export function httpRequest(
  method: string,
  url: string,
  options: { readonly body?: string | Buffer; readonly contentType?: string } = {},
): Promise<{ status: number; text: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolveResponse, reject) => {
    const headers: Record<string, string> = {};
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    const request = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolveResponse({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
          headers: response.headers,
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(options.body);
  });
}
