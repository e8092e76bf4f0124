// One error type with a closed set of Connect codes. Its message is what the
// client sees, so it never holds keys, prompts or raw upstream bodies; the
// cause stays server-side.

export type Code =
  | "canceled"
  | "unknown"
  | "invalid_argument"
  | "deadline_exceeded"
  | "not_found"
  | "already_exists"
  | "permission_denied"
  | "resource_exhausted"
  | "failed_precondition"
  | "aborted"
  | "out_of_range"
  | "unimplemented"
  | "internal"
  | "unavailable"
  | "data_loss"
  | "unauthenticated";

/** A Connect error detail: a protobuf message by its full type name. */
export interface ErrorDetail {
  type: string;
  value: Uint8Array;
}

export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: Code,
    message: string,
    readonly details: ErrorDetail[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Connect's HTTP status for each code (docs/protocol.md#errors). */
export function codeToHttpStatus(code: Code): number {
  switch (code) {
    case "canceled":
      return 499;
    case "unknown":
      return 500;
    case "invalid_argument":
      return 400;
    case "deadline_exceeded":
      return 504;
    case "not_found":
      return 404;
    case "already_exists":
      return 409;
    case "permission_denied":
      return 403;
    case "resource_exhausted":
      return 429;
    case "failed_precondition":
      return 400;
    case "aborted":
      return 409;
    case "out_of_range":
      return 400;
    case "unimplemented":
      return 501;
    case "internal":
      return 500;
    case "unavailable":
      return 503;
    case "data_loss":
      return 500;
    case "unauthenticated":
      return 401;
  }
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}

/** Anything thrown becomes an AppError; unknown failures keep their cause but not their text. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isAbortError(err)) return new AppError("canceled", "run was cancelled", [], { cause: err });
  return new AppError("internal", "internal error", [], { cause: err });
}
