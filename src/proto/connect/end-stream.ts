// The Connect end-stream payload: JSON `{}` on success, or `{"error":{...}}`.
// Cursor fails with "invalid wire type" if this JSON arrives in a message frame,
// so it only ever travels with FLAG_END_STREAM.
import { toBase64NoPadding } from "../../core/bytes.ts";
import { type AppError, type CodeName, codeName, errorDetails } from "../../core/errors.ts";
import { encodeEnvelope, FLAG_END_STREAM } from "./envelope.ts";

interface EndStreamJson {
  error?: { code: CodeName; message?: string; details?: { type: string; value: string }[] };
}

function endStreamToJson(error?: AppError): EndStreamJson {
  if (!error) return {};
  const body: NonNullable<EndStreamJson["error"]> = { code: codeName(error) };
  if (error.rawMessage) body.message = error.rawMessage;
  const details = errorDetails(error);
  if (details.length > 0) body.details = details.map((d) => ({ type: d.type, value: toBase64NoPadding(d.value) }));
  return { error: body };
}

export function encodeEndStream(error?: AppError): Uint8Array {
  return encodeEnvelope(FLAG_END_STREAM, new TextEncoder().encode(JSON.stringify(endStreamToJson(error))));
}

/** The JSON error body of a failed unary call or a failed stream before it started. */
export function errorToJsonBody(error: AppError): string {
  return JSON.stringify(endStreamToJson(error).error);
}
