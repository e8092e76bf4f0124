// How the admin API fails (docs/hosting.md#errors): the HTTP status and
// {"error": {"code", "message", "fields"?}}, with Connect codes. A refused field
// (a zod validation failure, or a check of one field in a route) is invalid_argument
// whose message names each problem ("body.email: …; body.role: …") and whose `fields`
// lists them one by one, paths and reasons, never values.
import type { ZodError } from "zod";
import { HTTPException } from "hono/http-exception";
import { AppError, Code, codeName, httpStatus, retryAfterHeader, toAppError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import { describeIssues, issuesOf } from "../../core/zod-issues.ts";

/** One refused field: where ("body.email", "query.limit") and why. */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * invalid_argument naming the fields it refuses. A subclass here rather than a field of AppError,
 * which src/core shares with the Cursor protocol; the message stays the plain joined text.
 */
export class FieldsError extends AppError {
  readonly fields: readonly FieldProblem[];

  /** `message` defaults to every problem as "path: message", joined by "; ". */
  constructor(fields: readonly FieldProblem[], message = describeIssues(fields)) {
    super("invalid_argument", message);
    this.fields = fields;
  }
}

/** invalid_argument for one field, e.g. invalidField("body.expires_at", "must be in the future"). */
export function invalidField(path: string, message: string): FieldsError {
  return new FieldsError([{ path, message }]);
}

/** Connect's status per code, except that the admin API answers failed_precondition with 412. */
function adminStatus(error: AppError): number {
  return error.code === Code.FailedPrecondition ? 412 : httpStatus(error);
}

export function adminErrorResponse(err: unknown): Response {
  const error = err instanceof HTTPException ? fromHttpException(err) : toAppError(err);
  if (error.code === Code.Internal) console.error("byok-edge: admin request failed:", errorKind(error.cause));
  // Read from what was thrown, so the list survives however toAppError wraps it.
  const fields = err instanceof FieldsError && err.fields.length > 0 ? { fields: err.fields } : {};
  return Response.json(
    { error: { code: codeName(error), message: error.rawMessage, ...fields } },
    {
      status: adminStatus(error),
      headers: retryAfterHeader(error),
    },
  );
}

/** The validators' hook: a request that does not match its schema is refused with every problem named. */
export function refuseInvalid(result: { success: true } | { success: false; error: ZodError; target: string }): undefined {
  if (result.success) return undefined;
  const where = TARGETS[result.target] ?? result.target;
  throw new FieldsError(issuesOf(result.error, { under: where }).map(({ path, message }) => ({ path, message })));
}

const TARGETS: Record<string, string> = { json: "body", param: "path", query: "query", header: "header" };

/** Hono's own refusals (malformed JSON, a body that is not JSON) in the admin API's shape. */
function fromHttpException(err: HTTPException): AppError {
  if (err.status === 415) return new AppError("invalid_argument", "the body must be JSON (content-type: application/json)");
  if (err.status === 400) return new AppError("invalid_argument", err.message || "the request is malformed");
  return toAppError(err);
}
