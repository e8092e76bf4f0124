// The opaque page cursor of the runs and conversations lists (docs/hosting.md#runs-api):
// base64url of "<finish ms>.<row id>", the keyset of the last row of a page. Anything
// else given as `before` is refused naming the parameter.
import { fromBase64, toBase64Url } from "../../core/bytes.ts";
import type { RunsCursor } from "../store/run-rows.ts";
import { invalidField } from "./admin-errors.ts";

export function encodeCursor(cursor: RunsCursor): string {
  return toBase64Url(new TextEncoder().encode(`${cursor.atMs}.${cursor.rowId}`));
}

export function decodeCursor(before: string | undefined): RunsCursor | undefined {
  if (before === undefined) return undefined;
  // Anything but base64url decodes to nothing, refused below like any other foreign value.
  const bytes = /^[A-Za-z0-9_-]+$/.test(before) ? fromBase64(before) : undefined;
  const text = bytes ? new TextDecoder().decode(bytes) : "";
  const match = text.match(/^(\d{1,16})\.(\d{1,16})$/);
  const atMs = Number(match?.[1]);
  const rowId = Number(match?.[2]);
  if (!match || !Number.isSafeInteger(atMs) || !Number.isSafeInteger(rowId)) {
    throw invalidField("query.before", "not a cursor; pass the next_before of the previous page");
  }
  return { atMs, rowId };
}
