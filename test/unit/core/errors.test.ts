// The one error type (src/core/errors.ts, docs/architecture.md#errors): an AppError is a
// connect-es ConnectError, its code names and HTTP statuses are Connect's, and `instanceof`
// keeps to the prototype chain.
import { ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { AppError, Code, type CodeName, codeName, errorDetails, httpStatus, toAppError } from "../../../src/core/errors.ts";
import { MissingClientBlob } from "../../../src/cursor/agent/client-blob.ts";

/** Connect's table (docs/protocol.md#errors): every code's wire name and HTTP status. */
const CONNECT: [CodeName, Code, number][] = [
  ["canceled", Code.Canceled, 499],
  ["unknown", Code.Unknown, 500],
  ["invalid_argument", Code.InvalidArgument, 400],
  ["deadline_exceeded", Code.DeadlineExceeded, 504],
  ["not_found", Code.NotFound, 404],
  ["already_exists", Code.AlreadyExists, 409],
  ["permission_denied", Code.PermissionDenied, 403],
  ["resource_exhausted", Code.ResourceExhausted, 429],
  ["failed_precondition", Code.FailedPrecondition, 400],
  ["aborted", Code.Aborted, 409],
  ["out_of_range", Code.OutOfRange, 400],
  ["unimplemented", Code.Unimplemented, 501],
  ["internal", Code.Internal, 500],
  ["unavailable", Code.Unavailable, 503],
  ["data_loss", Code.DataLoss, 500],
  ["unauthenticated", Code.Unauthenticated, 401],
];

describe("AppError", () => {
  it.each(CONNECT)("%s is Connect's code %i with HTTP status %i, and its name comes back", (name, code, status) => {
    const error = new AppError(name, "text");
    expect(error.code).toBe(code);
    expect(httpStatus(error)).toBe(status);
    expect(codeName(error)).toBe(name);
  });

  it("is a ConnectError whose message is the plain text the client sees", () => {
    const error = new AppError("not_found", "no such team");
    expect(error).toBeInstanceOf(ConnectError);
    expect(ConnectError.from(error)).toBe(error);
    expect(error.message).toBe("no such team");
    expect(error.rawMessage).toBe("no such team");
  });

  it("keeps its details as type name and bytes", () => {
    const value = new Uint8Array([8, 57]);
    expect(errorDetails(new AppError("unavailable", "down", [{ type: "aiserver.v1.ErrorDetails", value }]))).toEqual([
      { type: "aiserver.v1.ErrorDetails", value },
    ]);
  });

  it("is what instanceof says by the prototype chain, not by shape", () => {
    const plain = new AppError("failed_precondition", "x");
    const missing = new MissingClientBlob("the blob", new Uint8Array(2));
    expect(missing).toBeInstanceOf(AppError);
    expect(plain).not.toBeInstanceOf(MissingClientBlob);
    expect(new ConnectError("from a peer", Code.NotFound)).not.toBeInstanceOf(AppError);
  });
});

describe("toAppError", () => {
  it("keeps a ConnectError, calls an abort canceled, and hides anything else as internal", () => {
    const peer = new ConnectError("from a peer", Code.NotFound);
    expect(toAppError(peer)).toBe(peer);
    expect(codeName(toAppError(new DOMException("stop", "AbortError")))).toBe("canceled");
    const hidden = toAppError(new Error("SQL: SELECT secret"));
    expect([codeName(hidden), hidden.rawMessage]).toEqual(["internal", "internal error"]);
  });
});
