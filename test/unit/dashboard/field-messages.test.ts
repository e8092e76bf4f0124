// The dashboard splits the admin API's invalid_argument message into per-field
// messages (dashboard/src/field-messages.ts), to show each beside its field.
import { describe, expect, it } from "vitest";
import { fieldMessages } from "../../../dashboard/src/field-messages.ts";

describe("field messages of an invalid_argument message", () => {
  it("keys each body field's message by the field's name", () => {
    expect(fieldMessages('body.email: Invalid email address; body.role: Invalid option: expected one of "admin"|"member"')).toEqual({
      email: "Invalid email address",
      role: 'Invalid option: expected one of "admin"|"member"',
    });
  });

  it("gives a nested path's message to its first field and joins several messages of one field", () => {
    expect(fieldMessages("body.headers.authorization: not allowed; body.headers: at most 32 headers")).toEqual({
      headers: "not allowed; at most 32 headers",
    });
  });

  it("keeps a message that itself contains a semicolon whole", () => {
    expect(fieldMessages("body.base_url: must be https; got http; body.name: Too small")).toEqual({
      base_url: "must be https; got http",
      name: "Too small",
    });
  });

  it("names query parameters too, and nothing for a message about no field", () => {
    expect(fieldMessages("query.limit: Too big: expected number to be <=200")).toEqual({ limit: "Too big: expected number to be <=200" });
    expect(fieldMessages("the body is not valid JSON")).toEqual({});
  });
});
