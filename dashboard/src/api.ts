// The admin API client of the dashboard: JSON over fetch with the session's bearer
// token, errors as ApiError with the per-field messages of a 400 split out
// (docs/hosting.md#errors). A 401 ends the session it was made for (session.ts), so pages need not.
import { fieldMessages } from "./field-messages.ts";
import { endSessionOf } from "./session.ts";
import type { Api } from "./types.ts";

const BASE = "/api/v1";
/** A model test waits for a provider; everything else answers in well under this. */
const TIMEOUT_MS = 60_000;

export class ApiError extends Error {
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The Connect code from {"error": {code, message}}. */
  readonly code: string;
  /** Messages per field, from "body.email: Invalid email address; body.role: …" → {email: "Invalid email address", role: "…"}. */
  readonly fields: Record<string, string>;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fields = status === 400 ? fieldMessages(message) : {};
  }
}

export type { Api } from "./types.ts";

/** An Api for `token`; `onUnauthorized` runs on a 401 (by default: end this token's session, not a newer one). */
export function createApi(token: string, onUnauthorized: () => void = () => endSessionOf(token)): Api {
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(BASE + path, {
        method,
        headers,
        body: body === undefined ? null : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
        credentials: "omit",
        cache: "no-store",
      });
    } catch (err) {
      const timedOut = err instanceof DOMException && err.name === "TimeoutError";
      throw new ApiError(0, "unavailable", timedOut ? "The server did not answer in time." : "The server could not be reached.");
    }
    if (res.status === 401) {
      onUnauthorized();
      throw new ApiError(401, "unauthenticated", "the token is no longer valid");
    }
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    const parsed = parseJson(text);
    if (!res.ok) {
      const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      throw new ApiError(
        res.status,
        typeof error?.code === "string" ? error.code : "unknown",
        typeof error?.message === "string" ? error.message : `HTTP ${res.status}`,
      );
    }
    if (parsed === undefined) throw new ApiError(res.status, "internal", "The server answered with something that is not JSON.");
    return parsed as T;
  }
  const withQuery = (path: string, query?: Record<string, string | undefined>) => {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined && value !== "") params.set(key, value);
    const search = params.toString();
    return search ? `${path}?${search}` : path;
  };
  return {
    get: (path, query) => call("GET", withQuery(path, query)),
    post: (path, body) => call("POST", path, body),
    patch: (path, body) => call("PATCH", path, body),
    del: (path) => call<void>("DELETE", path),
  };
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
