// The admin API client of the dashboard: openapi-fetch typed by the declarations
// generated from the API's own OpenAPI document (api/schema.d.ts, `npm run gen:api`,
// docs/dashboard.md#the-api-client), with the session's bearer token, or (signed on) the
// deployment's own cookie. Anything but a
// 2xx answer throws ApiError, a 400's refused fields keyed by form field
// (docs/hosting.md#errors). A 401 ends the session it was made for (session.ts), so pages need not.
import createClient from "openapi-fetch";
import { formFieldMessages } from "./api/fields.ts";
import type { components, paths } from "./api/schema.d.ts";
import { type Credential, endSessionOf } from "./session.ts";
import type { Api } from "./types.ts";

/** A model test waits for a provider; everything else answers in well under this. */
const TIMEOUT_MS = 60_000;

type FieldError = components["schemas"]["FieldError"];

export class ApiError extends Error {
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The Connect code from {"error": {code, message}}. */
  readonly code: string;
  /** Messages per form field, from the error's `fields` (api/fields.ts). */
  readonly fields: Record<string, string>;

  constructor(status: number, code: string, message: string, fields: readonly FieldError[] = []) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.fields = formFieldMessages(fields);
  }
}

export type { Api } from "./types.ts";

/**
 * The body of a call's 2xx answer. openapi-fetch types it as possibly absent (its error branch),
 * but every other answer has already thrown ApiError.
 */
export async function answer<T>(call: Promise<{ data?: T }>): Promise<T> {
  return (await call).data as T;
}

/** An Api for `credential`; `onUnauthorized` runs on a 401 (by default: end this credential's session, not a newer one). */
export function createApi(credential: Credential, onUnauthorized: () => void = () => endSessionOf(credential)): Api {
  const bearer = credential.kind === "token" ? { authorization: `Bearer ${credential.token}` } : {};
  return createClient<paths>({
    headers: { ...bearer, accept: "application/json" },
    // A token is sent as itself and no cookie with it; a sign-on is the deployment's cookie (or Access's).
    credentials: credential.kind === "token" ? "omit" : "same-origin",
    cache: "no-store",
    fetch: (request) => send(request, onUnauthorized),
  });
}

/** One call: the answer when it is a 2xx (JSON, or 204), else ApiError. */
async function send(request: Request, onUnauthorized: () => void): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(request, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    const timedOut = err instanceof DOMException && err.name === "TimeoutError";
    throw new ApiError(0, "unavailable", timedOut ? "The server did not answer in time." : "The server could not be reached.");
  }
  if (res.status === 401) {
    onUnauthorized();
    throw new ApiError(401, "unauthenticated", "the token is no longer valid");
  }
  if (res.status === 204) return res;
  const parsed = parseJson(await res.clone().text());
  if (!res.ok) {
    const error = (parsed as { error?: { code?: unknown; message?: unknown; fields?: unknown } } | undefined)?.error;
    throw new ApiError(
      res.status,
      typeof error?.code === "string" ? error.code : "unknown",
      typeof error?.message === "string" ? error.message : `HTTP ${res.status}`,
      Array.isArray(error?.fields) ? error.fields.filter(isFieldError) : [],
    );
  }
  if (parsed === undefined) throw new ApiError(res.status, "internal", "The server answered with something that is not JSON.");
  return res;
}

function isFieldError(value: unknown): value is FieldError {
  const f = value as Partial<FieldError> | null;
  return typeof f?.path === "string" && typeof f.message === "string";
}

function parseJson(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
