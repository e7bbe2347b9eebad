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
    const problem = JSON.parse(text) as { code?: unknown; detail?: unknown; title?: unknown };
    const code = typeof problem.code === 'string' ? problem.code : `http_${response.status}`;
    const detail =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : text;
    return new ApiError(response.status, code, detail);
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
