// How run failures reach Cursor (docs/protocol.md#errors): provider failures become
// `unavailable` with aiserver.v1.ErrorDetails so the client shows a provider
// error card; the message never contains keys or prompt text.
import { create, toBinary } from "@bufbuild/protobuf";
import { ErrorDetails_Error, ErrorDetailsSchema } from "../../proto/gen/aiserver/v1/aiserver_pb.ts";
import { AppError, isAbortError } from "../../core/errors.ts";
import { ProviderError } from "../../provider/failure.ts";
import { isRetryable } from "../../provider/retry.ts";

const ERROR_DETAILS_TYPE = "aiserver.v1.ErrorDetails";

function providerFailure(err: ProviderError, modelName: string): AppError {
  const detail = `${modelName}: ${err.message}`;
  const details = create(ErrorDetailsSchema, {
    error: ErrorDetails_Error.PROVIDER_ERROR,
    details: {
      title: "Provider Error",
      detail,
      // The detail carries provider text, which is not trusted markdown.
      allowCommandLinksPotentiallyUnsafePleaseOnlyUseForHandwrittenTrustedMarkdown: false,
      isRetryable: isRetryable(err),
      showRequestId: true,
      shouldShowImmediateError: false,
    },
    isExpected: true,
  });
  return new AppError("unavailable", detail, [{ type: ERROR_DETAILS_TYPE, value: toBinary(ErrorDetailsSchema, details) }], {
    cause: err,
  });
}

/**
 * The model declined to answer (docs/protocol.md#refusals). Not retryable: the same request gets
 * the same refusal, so the client shows it at once instead of offering a retry.
 */
export function modelRefused(modelName: string): AppError {
  const detail = `${modelName} declined to answer this request; nothing it asked for was run`;
  const details = create(ErrorDetailsSchema, {
    error: ErrorDetails_Error.PROVIDER_ERROR,
    details: {
      title: "The model refused",
      detail,
      allowCommandLinksPotentiallyUnsafePleaseOnlyUseForHandwrittenTrustedMarkdown: false,
      isRetryable: false,
      showRequestId: true,
      shouldShowImmediateError: true,
    },
    isExpected: true,
  });
  return new AppError("unavailable", detail, [{ type: ERROR_DETAILS_TYPE, value: toBinary(ErrorDetailsSchema, details) }]);
}

export const RUN_CANCELLED = () => new AppError("canceled", "run was cancelled");

/** Classifies whatever a run threw into the error its stream ends with. */
export function runFailure(err: unknown, modelName: string): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ProviderError) return providerFailure(err, modelName);
  if (isAbortError(err)) return RUN_CANCELLED();
  return new AppError("internal", "internal error", [], { cause: err });
}
