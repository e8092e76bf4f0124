// How the dashboard writes times (dashboard/src/format.ts): in the reader's time zone,
// which the text names, so that a time is never read in the wrong zone.
import { describe, expect, it } from "vitest";
import { formatDateTime } from "../../../dashboard/src/format.ts";

const LATE = "2026-03-05T23:30:00Z";

describe("dashboard timestamps", () => {
  it("name their time zone", () => {
    expect(formatDateTime(LATE, "UTC")).toMatch(/\bUTC\b/);
    expect(formatDateTime(LATE, "America/New_York")).toMatch(/\b(EST|GMT-5)\b/);
  });

  it("are written in that zone: the same instant is another day in Tokyo", () => {
    expect(formatDateTime(LATE, "UTC")).toMatch(/\b5\b/);
    expect(formatDateTime(LATE, "Asia/Tokyo")).toMatch(/\b6\b/);
  });

  it("write a dash for nothing and keep what does not parse", () => {
    expect(formatDateTime(null)).toBe("—");
    expect(formatDateTime("not a time")).toBe("not a time");
  });
});
