// Schemas more than one admin resource uses: the error body (with the refused fields
// of an invalid_argument), timestamps, path ids and the error responses a route
// declares (docs/hosting.md#errors).
import { z } from "@hono/zod-openapi";

const FieldErrorSchema = z
  .object({
    path: z
      .string()
      .openapi({ description: 'Where: "body", "query", "path" or "header", then the field, joined by "."', example: "body.email" }),
    message: z.string().openapi({ description: "Why, never the value", example: "Invalid email address" }),
  })
  .openapi("FieldError");

const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: "not_found" }),
      message: z.string().openapi({ example: "team team_0123456789abcdef01234567 not found" }),
      fields: z
        .array(FieldErrorSchema)
        .optional()
        .openapi({ description: "invalid_argument only, when it refuses particular fields: each of them; message names them all too" }),
    }),
  })
  .openapi("Error");

/** ISO-8601 UTC, e.g. 2026-05-01T12:00:00.000Z. */
export const Timestamp = z.iso.datetime().openapi({ example: "2026-05-01T12:00:00.000Z" });

export function iso(ms: number): string;
export function iso(ms: number | null): string | null;
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A path parameter holding an id; an id that names nothing answers 404, so its shape is not checked. */
export function idParam<N extends string>(name: N) {
  return z.object({
    [name]: z
      .string()
      .min(1)
      .max(100)
      .openapi({ param: { name, in: "path" } }),
  } as { [K in N]: z.ZodString });
}

const ERROR_DESCRIPTIONS = {
  400: "invalid_argument: the request does not match its schema",
  401: "unauthenticated: no valid bearer token",
  403: "permission_denied: the caller can see the resource but not change it",
  404: "not_found: no such resource within the caller's reach",
  409: "already_exists: the name or email is taken",
  412: "failed_precondition: the change would break an invariant",
  429: "resource_exhausted: a limit is reached",
  501: "unimplemented: the operator API needs ADMIN_TOKEN",
  503: "unavailable: something the answer depends on could not be reached; try again",
} as const;

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/** The error responses of a route, for its OpenAPI description (400 and 401 are always possible). */
export function errorResponses(...statuses: ErrorStatus[]) {
  const all = [...new Set<ErrorStatus>([400, 401, ...statuses])];
  return Object.fromEntries(
    all.map((status) => [status, { description: ERROR_DESCRIPTIONS[status], content: { "application/json": { schema: ErrorSchema } } }]),
  ) as Record<ErrorStatus, { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }>;
}

/** A JSON response body for a route definition. */
export function json<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A required JSON request body. */
export function jsonBody<S extends z.ZodType>(schema: S) {
  return { required: true, content: { "application/json": { schema } } };
}

/** Every admin route needs a bearer token. */
export const BEARER = [{ bearer: [] }];

/** Characters a name may not hold: controls, bidi controls and zero-width ones, which make one name look like another. */
const UNTRUSTED_IN_NAMES = /[\p{Cc}\u200B-\u200F\u202A-\u202E\u2060-\u2069\u061C\uFEFF]/u;
const NAME_MAX_CODE_POINTS = 200;

/**
 * A name people read (team, credential, model, token): trimmed, stored in Unicode NFC so two
 * spellings of one name are one name, at most 200 characters counted as code points, and without
 * control, bidi or zero-width characters (docs/hosting.md#names).
 */
export function displayName(example: string) {
  return z
    .string()
    .trim()
    .min(1)
    .transform((name) => name.normalize("NFC"))
    .refine((name) => Array.from(name).length <= NAME_MAX_CODE_POINTS, `at most ${NAME_MAX_CODE_POINTS} characters`)
    .refine((name) => !UNTRUSTED_IN_NAMES.test(name), "must not contain control, bidi or zero-width characters")
    .openapi({ example, description: `At most ${NAME_MAX_CODE_POINTS} characters, stored in Unicode NFC` });
}

/** How deep a stored JSON field may nest: far past any provider's options, far short of a stack overflow. */
export const JSON_DEPTH_MAX = 32;

/** True when `value` nests objects and arrays at most `max` deep; iterative, so no input overflows the stack. */
export function jsonDepthAtMost(value: unknown, max = JSON_DEPTH_MAX): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if (item.value === null || typeof item.value !== "object") continue;
    if (item.depth >= max) return false;
    for (const child of Object.values(item.value)) stack.push({ value: child, depth: item.depth + 1 });
  }
  return true;
}
