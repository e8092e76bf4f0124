// openapi-typescript builds its output with TypeScript's compiler API, which TypeScript 7
// (the project's) does not have: this package gives it TypeScript 5 of its own, out of the
// way of the project's tsc (docs/dashboard.md#the-api-client).
import openapiTS, { astToString } from "openapi-typescript";

/** The TypeScript declarations (paths, components, operations) of an OpenAPI 3.1 document. */
export async function declarationsOf(document) {
  return astToString(await openapiTS(document));
}
