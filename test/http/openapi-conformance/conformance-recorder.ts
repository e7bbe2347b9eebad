// Every answer an HTTP end-to-end spec receives from an engine it started is checked against the
// OpenAPI document that engine serves: answers through the harness, the event-stream client and
// raw connections are handed in by those helpers, and answers to `fetch` (the @strata/client
// transport, specs' own requests) by a wrapper around the global fetch. What disagrees with the
// document is kept and fails the test that received it, in an `afterEach`. The document and the
// validator are loaded on the first answer, so that spec files outside test/http load neither.
/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use only (see above) */
import type { apiDocument as ApiDocument } from '../../../apps/engine/src/http/api-document';
import type {
  ObservedResponse,
  OpenApiDescription,
  OpenApiResponseValidator,
} from './openapi-response-validator';

interface Recorder {
  readonly engineOrigins: Set<string>;
  readonly mismatches: string[];
  validator: OpenApiResponseValidator | undefined;
}

let recorder: Recorder | undefined;

/** Media types whose bodies are streams the wrapper does not read (status and media type only). */
const STREAMED_MEDIA_TYPES = ['text/event-stream', 'application/x-ndjson', 'application/jsonl'];

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function loadValidator(): OpenApiResponseValidator {
  const { apiDocument } = require('../../../apps/engine/src/http/api-document') as {
    apiDocument: typeof ApiDocument;
  };
  const { OpenApiResponseValidator: Validator } = require('./openapi-response-validator') as {
    OpenApiResponseValidator: typeof OpenApiResponseValidator;
  };
  // The document as /docs/openapi.json serves it: JSON text, read back. A route the engine does
  // not serve answers 404 problem details (api-errors.e2e-spec.ts asks for some).
  return new Validator(JSON.parse(JSON.stringify(apiDocument())) as OpenApiDescription, {
    unknownRoutes: { status: 404, mediaType: 'application/problem+json', component: 'Problem' },
  });
}

/** Whether answers from `url` are checked: it is the origin of an engine a spec started. */
export function isEngineUrl(url: string): boolean {
  const origin = originOf(url);
  return recorder !== undefined && origin !== undefined && recorder.engineOrigins.has(origin);
}

/** Answers from `url`'s origin are checked from now on (an engine listens there). */
export function registerEngineOrigin(url: string): void {
  const origin = originOf(url);
  if (origin !== undefined) recorder?.engineOrigins.add(origin);
}

/** Answers from `url`'s origin are no longer checked (its engine closed). */
export function forgetEngineOrigin(url: string): void {
  const origin = originOf(url);
  if (origin !== undefined) recorder?.engineOrigins.delete(origin);
}

/** Checks one answer of an engine; a mismatch is kept for the running test's `afterEach`. */
export function recordApiResponse(response: ObservedResponse): void {
  const active = recorder;
  if (active === undefined) return;
  try {
    active.validator ??= loadValidator();
    const mismatch = active.validator.check(response);
    if (mismatch !== undefined) active.mismatches.push(mismatch);
  } catch (error) {
    active.mismatches.push(
      `${response.method} ${response.target} (${response.status}) could not be checked: ${String(error)}`,
    );
  }
}

function requestOf(input: Parameters<typeof fetch>[0], init: Parameters<typeof fetch>[1]) {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  return { url, method: method.toUpperCase() };
}

function checkingFetch(original: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await original(input, init);
    const { url, method } = requestOf(input, init);
    if (!isEngineUrl(url)) return response;
    const contentType = response.headers.get('content-type') ?? undefined;
    const mediaType = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    const streamed = STREAMED_MEDIA_TYPES.includes(mediaType) || method === 'HEAD';
    // A body cut off (the caller aborted) is checked for its status and media type only.
    const body = streamed
      ? undefined
      : await response
          .clone()
          .text()
          .catch(() => undefined);
    const parsed = new URL(url);
    recordApiResponse({
      method,
      target: `${parsed.pathname}${parsed.search}`,
      status: response.status,
      contentType,
      body,
    });
    return response;
  };
}

/**
 * The mismatches kept since the last test, which no longer fail it: for a spec that makes an
 * answer disagree on purpose, to see that it is caught.
 */
export function takeRecordedMismatches(): string[] {
  return recorder?.mismatches.splice(0) ?? [];
}

function failOnMismatches(): void {
  const found = takeRecordedMismatches();
  if (found.length === 0) return;
  throw new Error(
    `the engine answered ${found.length} time(s) outside its OpenAPI document:\n- ${found.join('\n- ')}`,
  );
}

/**
 * Checks the answers of engines registered with `registerEngineOrigin` from now on, and fails
 * each test (or the file, for answers received in `afterAll`) that received a mismatch.
 */
export function installOpenApiConformance(): void {
  if (recorder !== undefined) return;
  recorder = { engineOrigins: new Set(), mismatches: [], validator: undefined };
  globalThis.fetch = checkingFetch(globalThis.fetch);
  afterEach(failOnMismatches);
  afterAll(failOnMismatches);
}
