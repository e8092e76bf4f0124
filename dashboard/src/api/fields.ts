// The refused fields of an admin API error (`fields`, docs/hosting.md#errors) by the
// form field each belongs to, for ApiError (api.ts). Type imports only, so it is
// unit-tested in Node.
import type { components } from "./schema.d.ts";

type FieldError = components["schemas"]["FieldError"];

/**
 * Each message keyed by the first segment after body. or query. ("body.headers.x-a" is the
 * "headers" field's), several for one field joined by "; ". The body as a whole, path and header
 * parameters are no form field's.
 */
export function formFieldMessages(problems: readonly FieldError[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const { path, message } of problems) {
    const [where, field] = path.split(".");
    if ((where !== "body" && where !== "query") || !field) continue;
    fields[field] = fields[field] ? `${fields[field]}; ${message}` : message;
  }
  return fields;
}
