// The days a usage query covers (src/hosting/admin/usage-range.ts): ISO days or
// timestamps read as UTC days, the current month by default, bounded ranges.
import { describe, expect, it } from "vitest";
import { FieldsError } from "../../../src/hosting/admin/admin-errors.ts";
import { usageRange } from "../../../src/hosting/admin/usage-range.ts";
import { AppError, Code } from "../../../src/core/errors.ts";

const NOW = Date.parse("2026-05-17T15:00:00Z");

function refusal(query: { from?: string; to?: string }): AppError {
  try {
    usageRange(query, NOW);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("usage range", () => {
  it("defaults to the current UTC month up to today", () => {
    expect(usageRange({}, NOW)).toEqual({ from: "2026-05-01", to: "2026-05-17" });
  });

  it("starts at the first day of to's month when only to is given", () => {
    expect(usageRange({ to: "2026-03-09" }, NOW)).toEqual({ from: "2026-03-01", to: "2026-03-09" });
  });

  it("reads timestamps as their UTC day, offsets included", () => {
    expect(usageRange({ from: "2026-04-01T23:30:00+02:00", to: "2026-04-30T23:59:59.999Z" }, NOW)).toEqual({
      from: "2026-04-01",
      to: "2026-04-30",
    });
    expect(usageRange({ from: "2026-04-02T01:00+02:00", to: "2026-04-02" }, NOW)).toEqual({ from: "2026-04-01", to: "2026-04-02" });
  });

  it("gives an empty range at a from still to come rather than a reversed one", () => {
    expect(usageRange({ from: "2026-06-01" }, NOW)).toEqual({ from: "2026-06-01", to: "2026-06-01" });
  });

  it("refuses dates that are not ISO days or timestamps, naming the parameter", () => {
    for (const bad of ["2026-02-30", "2026-13-01", "yesterday", "2026-5-1", "1715958000", "2026-05-01T25:00Z", "2026-02-30T10:00:00Z"]) {
      const err = refusal({ from: bad });
      expect(err.code).toBe(Code.InvalidArgument);
      expect(err.message).toMatch(/^query\.from: expected an ISO day/);
    }
    expect(refusal({ to: "soon" }).message).toMatch(/^query\.to:/);
  });

  it("refuses a to before from and ranges longer than 366 days", () => {
    expect(refusal({ from: "2026-05-02", to: "2026-05-01" }).message).toBe("query.to (2026-05-01) is before query.from (2026-05-02)");
    expect(usageRange({ from: "2024-01-01", to: "2024-12-31" }, NOW)).toEqual({ from: "2024-01-01", to: "2024-12-31" });
    expect(refusal({ from: "2024-01-01", to: "2025-01-01" }).message).toMatch(/367 days; at most 366/);
    expect(refusal({ from: "2020-01-01" }).code).toBe(Code.InvalidArgument);
  });

  it("names the refused parameter in the error's fields, and none for a range too long (docs/hosting.md#errors)", () => {
    expect((refusal({ to: "soon" }) as FieldsError).fields).toEqual([
      { path: "query.to", message: "expected an ISO day (2026-05-01) or timestamp (2026-05-01T12:00:00Z)" },
    ]);
    expect((refusal({ from: "2026-05-02", to: "2026-05-01" }) as FieldsError).fields).toEqual([
      { path: "query.to", message: "is before query.from" },
    ]);
    expect(refusal({ from: "2024-01-01", to: "2025-01-01" })).not.toBeInstanceOf(FieldsError);
  });
});
