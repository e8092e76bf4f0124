// The one error type of every product: connect-es's ConnectError, whose codes and
// code → HTTP status table (connect-es's own) the Cursor routes, the code-mode host
// and the admin API share (docs/architecture.md#errors). AppError only builds one from
// a code's wire name; its message is what the client sees, so it never holds keys,
// prompts or raw upstream bodies, and the cause stays server-side.
import { create, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { codeFromString, codeToHttpStatus, codeToString } from "@connectrpc/connect/protocol-connect";

/** A Connect code by its wire name, as the end-stream JSON and the admin API spell it. */
export type CodeName =
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

/** A Connect error detail: a protobuf message by its full type name (connect-es's incoming form). */
export interface ErrorDetail {
  type: string;
  value: Uint8Array;
}

/**
 * A ConnectError made from a code's wire name. Its `message` is the plain text (ConnectError
 * prefixes it with the code; `rawMessage` is the same plain text). connect-es recognises it as
 * its own (its `instanceof` checks the name and shape), so the code-mode host throws it too.
 */
export class AppError extends ConnectError {
  constructor(code: CodeName, message: string, details: ErrorDetail[] = [], options?: { cause?: unknown }) {
    super(message, codeFromString(code) ?? Code.Unknown, undefined, undefined, options?.cause);
    this.message = message;
    this.details.push(...details);
  }

  /**
   * `x instanceof AppError` (or a subclass) by the prototype chain, as for any class: the
   * static that ConnectError would pass down accepts anything shaped like a ConnectError, so
   * `instanceof MissingClientBlob` would be true of every error.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class instanceof asks about, a subclass too
    return typeof value === "object" && value !== null && Object.prototype.isPrototypeOf.call(this.prototype, value);
  }
}

/**
 * resource_exhausted that says when to retry: its message names the wait, and the Cursor routes
 * and the admin API send it as Retry-After too (docs/hosting.md#rate-limits).
 */
export class RetryLater extends AppError {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    super("resource_exhausted", message);
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

/** The Retry-After header of an error that says when to retry, else none. */
export function retryAfterHeader(error: unknown): Record<string, string> {
  return error instanceof RetryLater ? { "retry-after": String(error.retryAfterSeconds) } : {};
}

/** The wire name of an error's code ("invalid_argument"). */
export function codeName(error: ConnectError): CodeName {
  return codeToString(error.code) as CodeName;
}

/** Connect's HTTP status for an error's code (docs/protocol.md#errors). */
export function httpStatus(error: ConnectError): number {
  return codeToHttpStatus(error.code);
}

/** The details of an error as type name and bytes, whichever form connect-es holds them in. */
export function errorDetails(error: ConnectError): ErrorDetail[] {
  return error.details.map((d) => ("desc" in d ? { type: d.desc.typeName, value: toBinaryDetail(d) } : { type: d.type, value: d.value }));
}

export function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}

/** Anything thrown becomes a ConnectError; unknown failures keep their cause but not their text. */
export function toAppError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  if (isAbortError(err)) return new AppError("canceled", "run was cancelled", [], { cause: err });
  return new AppError("internal", "internal error", [], { cause: err });
}

export { Code };

function toBinaryDetail(detail: Extract<ConnectError["details"][number], { desc: unknown }>): Uint8Array {
  return toBinary(detail.desc, create(detail.desc, detail.value));
}
