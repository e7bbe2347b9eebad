#!/usr/bin/env node
'use strict';
// The container image's HEALTHCHECK (slim images have no curl): GET /health of the engine in the
// same container, on its PORT (3000 by default) over the loopback interface, or on STRATA_HOST
// when that names one address. Exit 0 when it answers 200 {"status":"ok"} within the timeout,
// 1 otherwise, with one line saying why.
//   node scripts/container/healthcheck.js [--timeout-ms <ms>]
const http = require('node:http');

const timeoutFlag = process.argv.indexOf('--timeout-ms');
const timeoutMs = timeoutFlag === -1 ? 4_000 : Number(process.argv[timeoutFlag + 1]);
const port = Number(process.env.PORT ?? 3000);
const configuredHost = process.env.STRATA_HOST ?? '';
const wildcardHosts = new Set(['', '0.0.0.0', '::', '[::]']);
const host = wildcardHosts.has(configuredHost) ? '127.0.0.1' : configuredHost.replace(/^\[|\]$/g, '');

function fail(reason) {
  process.stderr.write(`healthcheck: ${reason}\n`);
  process.exit(1);
}

const request = http.get({ host, port, path: '/health', timeout: timeoutMs, agent: false }, (response) => {
  let body = '';
  response.setEncoding('utf8');
  response.on('data', (chunk) => (body += chunk));
  response.on('end', () => {
    let status;
    try {
      status = JSON.parse(body).status;
    } catch {
      status = undefined;
    }
    if (response.statusCode === 200 && status === 'ok') process.exit(0);
    fail(`http://${host}:${port}/health answered ${response.statusCode} ${body.slice(0, 200)}`);
  });
});
request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)));
request.on('error', (error) => fail(`http://${host}:${port}/health: ${error.message}`));
