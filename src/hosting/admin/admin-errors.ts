// How the admin API fails (docs/hosting.md#errors): the HTTP status and
// {"error": {"code", "message"}}, with Connect codes; zod validation failures
// become invalid_argument with a readable message (paths and reasons, never values).
import type { ZodError } from "zod";
import { HTTPException } from "hono/http-exception";
import { AppError, Code, codeName, httpStatus, toAppError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";

/** Connect's status per code, except that the admin API answers failed_precondition with 412. */
function adminStatus(error: AppError): number {
  return error.code === Code.FailedPrecondition ? 412 : httpStatus(error);
}

export function adminErrorResponse(err: unknown): Response {
  const error = err instanceof HTTPException ? fromHttpException(err) : toAppError(err);
  if (error.code === Code.Internal) console.error("byok-edge: admin request failed:", errorKind(error.cause));
  return Response.json({ error: { code: codeName(error), message: error.rawMessage } }, { status: adminStatus(error) });
}

/** The validators' hook: a request that does not match its schema is refused with every problem named. */
export function refuseInvalid(result: { success: true } | { success: false; error: ZodError; target: string }): undefined {
  if (result.success) return undefined;
  const where = TARGETS[result.target] ?? result.target;
  const problems = result.error.issues.map((issue) => `${[where, ...issue.path.map(String)].join(".")}: ${issue.message}`);
  throw new AppError("invalid_argument", problems.join("; "));
}

const TARGETS: Record<string, string> = { json: "body", param: "path", query: "query", header: "header" };

/** Hono's own refusals (malformed JSON, a body that is not JSON) in the admin API's shape. */
function fromHttpException(err: HTTPException): AppError {
  if (err.status === 415) return new AppError("invalid_argument", "the body must be JSON (content-type: application/json)");
  if (err.status === 400) return new AppError("invalid_argument", err.message || "the request is malformed");
  return toAppError(err);
}
