// The dashboard shows each field the admin API refuses beside that field: the error's
// `fields` (docs/hosting.md#errors) keyed by the form field they belong to
// (dashboard/src/api/fields.ts), as ApiError.fields carries them.
import { describe, expect, it } from "vitest";
import { formFieldMessages } from "../../../dashboard/src/api/fields.ts";

describe("the form fields of an API error's refused fields", () => {
  it("keys each body field's message by the field's name", () => {
    expect(
      formFieldMessages([
        { path: "body.email", message: "Invalid email address" },
        { path: "body.role", message: 'Invalid option: expected one of "admin"|"member"' },
      ]),
    ).toEqual({ email: "Invalid email address", role: 'Invalid option: expected one of "admin"|"member"' });
  });

  it("gives a nested path's message to its first field and joins several messages of one field", () => {
    expect(
      formFieldMessages([
        { path: "body.headers.authorization", message: "not allowed" },
        { path: "body.headers", message: "at most 32 headers" },
      ]),
    ).toEqual({ headers: "not allowed; at most 32 headers" });
  });

  it("keeps a message that itself contains a semicolon or a colon whole", () => {
    expect(
      formFieldMessages([
        { path: "body.base_url", message: "must be https; got http: plain" },
        { path: "body.name", message: "Too small" },
      ]),
    ).toEqual({ base_url: "must be https; got http: plain", name: "Too small" });
  });

  it("names query parameters too, and no field for the body as a whole, a path parameter or no fields at all", () => {
    expect(formFieldMessages([{ path: "query.limit", message: "Too big: expected number to be <=200" }])).toEqual({
      limit: "Too big: expected number to be <=200",
    });
    expect(formFieldMessages([{ path: "body", message: 'Unrecognized key: "colour"' }])).toEqual({});
    expect(formFieldMessages([{ path: "path.team_id", message: "Too big" }])).toEqual({});
    expect(formFieldMessages([])).toEqual({});
  });
});
