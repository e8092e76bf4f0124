// The admin API (docs/hosting.md#admin-api) from Node, for the end-to-end checks and
// the screenshots' seed: one JSON call with a bearer token and a bounded wait; any
// answer outside 2xx (or other than the status the caller expects, e.g. 201 for a
// create) throws with its status and the API's error code and message
// (docs/hosting.md#errors). Tests inside the Workers runtime have their own client
// (test/support/admin-client.ts), which calls the worker directly.

const CALL_TIMEOUT_MS = 15_000;

/** An answer outside 2xx: its HTTP status and the `{"error": {code, message}}` of its body. */
class AdminApiError extends Error {
  readonly status: number;
  /** The Connect code, e.g. `invalid_argument`; `unknown` when the body was not the API's error shape. */
  readonly code: string;

  constructor(method: string, path: string, status: number, code: string, detail: string) {
    super(`${method} ${path} → HTTP ${status} ${code}: ${detail}`);
    this.name = "AdminApiError";
    this.status = status;
    this.code = code;
  }
}

function errorOf(text: string): { code: string; message: string } {
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === "string" && typeof body.error.message === "string") {
      return { code: body.error.code, message: body.error.message };
    }
  } catch {
    // not JSON: shown as it came, below
  }
  return { code: "unknown", message: text.slice(0, 500) || "(empty body)" };
}

/**
 * `path` is relative to /api/v1 (e.g. "/teams"); resolves with the parsed JSON body (undefined when
 * empty). With `expectStatus`, only that status is an answer (a create: 201), any other throws.
 */
export async function callApi<T>(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  expectStatus?: number,
): Promise<T> {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await res.text();
  if (!res.ok) {
    const { code, message } = errorOf(text);
    throw new AdminApiError(method, path, res.status, code, message);
  }
  if (expectStatus !== undefined && res.status !== expectStatus) {
    throw new AdminApiError(method, path, res.status, "unexpected_status", `expected HTTP ${expectStatus}`);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}
