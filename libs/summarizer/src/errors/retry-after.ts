// Reads how long a server asked us to wait before retrying (reference §5.5), from response headers
// or from an error's text. The current time comes in as an argument (epoch milliseconds).

/** Anything with a case-insensitive `get`, such as the fetch `Headers` class. */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** A numeric value above this is an epoch in seconds rather than a duration in seconds. */
const EPOCH_SECONDS_THRESHOLD = 1_000_000_000;
/** A numeric value above this is an epoch in milliseconds. */
const EPOCH_MILLISECONDS_THRESHOLD = 1_000_000_000_000;

function finiteNumber(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
}

function nonNegative(milliseconds: number): number {
  return Math.max(0, Math.ceil(milliseconds));
}

function milliseconds(text: string): number | undefined {
  const value = finiteNumber(text);
  return value === undefined ? undefined : nonNegative(value);
}

/** `retry-after`: delay in seconds, or an HTTP date. */
function secondsOrHttpDate(text: string, now: number): number | undefined {
  const seconds = finiteNumber(text);
  if (seconds !== undefined) return nonNegative(seconds * 1000);
  const date = Date.parse(text.trim());
  return Number.isNaN(date) ? undefined : nonNegative(date - now);
}

/** `x-ratelimit-reset`: delay in seconds, or the reset moment as an epoch (seconds or milliseconds). */
function secondsOrEpoch(text: string, now: number): number | undefined {
  const value = finiteNumber(text);
  if (value === undefined) return undefined;
  if (value > EPOCH_MILLISECONDS_THRESHOLD) return nonNegative(value - now);
  if (value > EPOCH_SECONDS_THRESHOLD) return nonNegative(value * 1000 - now);
  return nonNegative(value * 1000);
}

type HintReader = (text: string, now: number) => number | undefined;

/** Header names in the order they are trusted, each with how its value is read. */
const hintReaders: ReadonlyArray<readonly [string, HintReader]> = [
  ['retry-after-ms', milliseconds],
  ['retry-after', secondsOrHttpDate],
  ['x-ratelimit-reset-ms', milliseconds],
  ['x-ratelimit-reset', secondsOrEpoch],
];

/** The wait the headers ask for, in milliseconds, or undefined when they carry no usable hint. */
export function retryAfterFromHeaders(headers: HeaderLookup | undefined, now: number): number | undefined {
  if (headers === undefined) return undefined;
  for (const [name, read] of hintReaders) {
    const value = headers.get(name);
    if (value === null) continue;
    const wait = read(value, now);
    if (wait !== undefined) return wait;
  }
  return undefined;
}

const phraseReaders: ReadonlyArray<
  readonly [RegExp, (match: RegExpMatchArray, now: number) => number | undefined]
> = [
  ...hintReaders.map(
    ([name, read]) =>
      [
        new RegExp(`${name.replace(/-/g, '[-_]')}["']?\\s*[:=]\\s*["']?([^"',;\\n}]+)`, 'i'),
        (match: RegExpMatchArray, now: number) => read(match[1] ?? '', now),
      ] as const,
  ),
  [
    /(?:try again|retry) in (\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)\b/i,
    (match) => {
      const value = Number(match[1]);
      return nonNegative(/^m/i.test(match[2] ?? '') ? value : value * 1000);
    },
  ],
  [/retryDelay["']?\s*[:=]\s*["']?(\d+(?:\.\d+)?)s/i, (match) => nonNegative(Number(match[1]) * 1000)],
];

/**
 * The wait an error message asks for, in milliseconds: header-style hints copied into the text
 * (`retry-after-ms: 500`, `"retry_after": 3`), "try again in 1.5s", or a Gemini-style `retryDelay`.
 */
export function retryAfterFromText(text: string, now: number): number | undefined {
  for (const [pattern, read] of phraseReaders) {
    const match = text.match(pattern);
    if (match === null) continue;
    const wait = read(match, now);
    if (wait !== undefined) return wait;
  }
  return undefined;
}
