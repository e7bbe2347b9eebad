#!/usr/bin/env node
'use strict';
// The README's quickstart as CI checks it: `npm start` in the repository, as a user runs it (only
// the port is chosen by the system, PORT=0, so that it never meets another engine of the machine),
// until its start-up message names the address and GET /health there answers 200 {"status":"ok"};
// then the whole process group (npm, its shell, the engine) is stopped. Exit 0 when it answered.
//   node .ci/quickstart.js
const { spawn } = require('node:child_process');
const path = require('node:path');

const STARTUP_TIMEOUT_MS = 180_000;
const started = process.hrtime.bigint();
const child = spawn('npm', ['start'], {
  cwd: path.resolve(__dirname, '..'),
  env: { ...process.env, PORT: '0', STRATA_HOST: '127.0.0.1' },
  stdio: ['ignore', 'pipe', 'pipe'],
  detached: true,
});
let output = '';
child.stdout.on('data', (chunk) => (output += chunk));
child.stderr.on('data', (chunk) => (output += chunk));

function finish(code, message) {
  process.stdout.write(`${message}\n`);
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already ended
  }
  process.exitCode = code;
  setTimeout(() => process.exit(code), 2_000).unref();
}

const timer = setTimeout(
  () => finish(1, `quickstart: no answer from /health within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`),
  STARTUP_TIMEOUT_MS,
);
child.on('exit', (code, signal) => {
  if (process.exitCode !== undefined) return;
  clearTimeout(timer);
  finish(1, `quickstart: npm start ended (${signal ?? code}) before /health answered:\n${output}`);
});
child.stdout.on('data', async function listening() {
  const match = /listening on (http:\/\/\S+)/.exec(output);
  if (match === null) return;
  child.stdout.off('data', listening);
  const url = `${match[1].replace('localhost', '127.0.0.1')}/health`;
  try {
    const response = await fetch(url);
    const body = await response.text();
    clearTimeout(timer);
    const seconds = (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1);
    if (response.status === 200 && JSON.parse(body).status === 'ok') {
      finish(
        0,
        `quickstart: npm start answered ${url} (${body}) after ${seconds} s on Node ${process.version}`,
      );
    } else {
      finish(1, `quickstart: ${url} answered ${response.status} ${body}`);
    }
  } catch (error) {
    clearTimeout(timer);
    finish(1, `quickstart: ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
});
