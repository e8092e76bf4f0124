// The admin API's OpenAPI document (src/hosting/admin/api.ts), generated from the same
// zod schemas that validate requests, is a valid OpenAPI 3.1 document
// (checked by @readme/openapi-parser) with its errors (and their refused fields)
// and security described.
import { validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../../../src/hosting/admin/api.ts";

describe("the OpenAPI document", () => {
  it("validates as OpenAPI 3.1", async () => {
    const result = await validate(structuredClone(openApiDocument()) as never);
    if (!result.valid) throw new Error(JSON.stringify(result.errors, null, 2));
    expect(result.specification).toBe("OpenAPI");
  });

  it("describes every operation with bearer security and the admin error shape", () => {
    const document = openApiDocument();
    const operations = Object.values(document.paths ?? {}).flatMap((item) =>
      ["get", "post", "patch", "delete"].flatMap((method) => {
        const op = (item as Record<string, { security?: unknown; responses?: Record<string, unknown> } | undefined>)[method];
        return op ? [op] : [];
      }),
    );
    expect(operations.length).toBeGreaterThanOrEqual(11);
    for (const op of operations) {
      expect(op.security).toEqual([{ bearer: [] }]);
      expect(Object.keys(op.responses ?? {})).toEqual(expect.arrayContaining(["400", "401"]));
    }
    expect(document.components?.securitySchemes?.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.components?.schemas?.Error).toBeDefined();
  });

  it("describes the optional list of refused fields, each a path and a message, in the Error schema", () => {
    const schemas = openApiDocument().components?.schemas ?? {};
    expect(schemas.Error).toMatchObject({
      properties: {
        error: {
          properties: { fields: { type: "array", items: { $ref: "#/components/schemas/FieldError" } } },
          required: ["code", "message"],
        },
      },
    });
    expect(schemas.FieldError).toMatchObject({
      properties: { path: { type: "string" }, message: { type: "string" } },
      required: ["path", "message"],
    });
  });
});
