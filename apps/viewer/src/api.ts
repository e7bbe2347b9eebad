// Calls to the engine's HTTP API on behalf of the viewer: the API key (kept in sessionStorage,
// so it lasts as long as the tab) goes on every request as `Authorization: Bearer`; answers
// that are problem documents become `ApiError`s with their stable code.

const KEY_STORAGE_NAME = 'strata.apiKey';

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The problem document's fields, when the answer was one. */
    readonly problem: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
  }
}

export const apiKeys = {
  current(): string | undefined {
    return sessionStorage.getItem(KEY_STORAGE_NAME) ?? undefined;
  },
  remember(key: string): void {
    sessionStorage.setItem(KEY_STORAGE_NAME, key);
  },
  forget(): void {
    sessionStorage.removeItem(KEY_STORAGE_NAME);
  },
};

export type QueryValues = Readonly<Record<string, string | number | undefined>>;

/** The path with its query string (undefined values left out). */
export function apiUrl(path: string, query: QueryValues = {}): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) parameters.set(name, String(value));
  }
  const text = parameters.toString();
  return text === '' ? path : `${path}?${text}`;
}

/** The headers of every API request: the key when there is one. */
export function authorizationHeaders(): Record<string, string> {
  const key = apiKeys.current();
  return key === undefined ? {} : { Authorization: `Bearer ${key}` };
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  try {
    const problem = JSON.parse(text) as Record<string, unknown>;
    const code = typeof problem.code === 'string' ? problem.code : `http_${response.status}`;
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : text;
    return new ApiError(response.status, code, detail, problem);
  } catch {
    return new ApiError(response.status, `http_${response.status}`, text || response.statusText);
  }
}

export async function getJson<Result>(
  path: string,
  query: QueryValues = {},
  signal?: AbortSignal,
): Promise<Result> {
  const response = await fetch(apiUrl(path, query), {
    headers: { Accept: 'application/json', ...authorizationHeaders() },
    ...(signal !== undefined ? { signal } : {}),
  });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as Result;
}

/** The file name a Content-Disposition header gives, if any. */
export function attachmentName(header: string | null): string | undefined {
  if (header === null) return undefined;
  const encoded = /filename\*=UTF-8''([^;]+)/i.exec(header);
  const plain = /filename="([^"]*)"/i.exec(header);
  const raw = encoded?.[1] ?? plain?.[1];
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Fetches a file with the API key (a plain link would not carry it) and hands it to the
 * browser as a download. The name comes from the answer's Content-Disposition, else `fallbackName`.
 */
export async function downloadFile(path: string, query: QueryValues, fallbackName: string): Promise<string> {
  const response = await fetch(apiUrl(path, query), { headers: authorizationHeaders() });
  if (!response.ok) throw await errorOf(response);
  const blob = await response.blob();
  const name = attachmentName(response.headers.get('Content-Disposition')) ?? fallbackName;
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // Give the browser a moment to start the download before the URL goes.
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  return name;
}

export function isUnauthorized(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export function sessionPath(sessionId: string, suffix = ''): string {
  return `/sessions/${encodeURIComponent(sessionId)}${suffix}`;
}

/**
 * Like Promise.all, but when one of the reads answers 410 (the session was erased) that is the
 * error, whichever failed first: the record is in that answer.
 */
export async function allOrGone<const Reads extends readonly Promise<unknown>[]>(
  reads: Reads,
): Promise<{ -readonly [Index in keyof Reads]: Awaited<Reads[Index]> }> {
  const settled = await Promise.allSettled(reads);
  const failures = settled.flatMap((result) =>
    result.status === 'rejected' ? [result.reason as unknown] : [],
  );
  const gone = failures.find((error) => error instanceof ApiError && error.status === 410);
  if (gone !== undefined || failures.length > 0) throw gone ?? failures[0];
  return settled.map((result) => (result.status === 'fulfilled' ? result.value : undefined)) as {
    -readonly [Index in keyof Reads]: Awaited<Reads[Index]>;
  };
}
