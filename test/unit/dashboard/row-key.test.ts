// How the Runs page tells its rows apart (dashboard/src/runs/shapes.ts rowKey): conversation and
// run ids are per principal, so two users' rows of the same id must not share a key, an open state
// or an HTML id.
import { describe, expect, it } from "vitest";
import { rowKey } from "../../../dashboard/src/runs/shapes.ts";

describe("a row's key on the Runs page", () => {
  it("differs for two users' conversations of the same id", () => {
    const id = "3f2c9a1e-0000-4000-8000-000000000001";
    expect(rowKey({ user_id: "user-a", id })).not.toBe(rowKey({ user_id: "user-b", id }));
  });

  it("is a valid HTML id stem: letters, digits, - and _ only", () => {
    expect(rowKey({ user_id: "local", id: "conv with spaces\t/ü:1" })).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("never joins two different rows into one key", () => {
    const rows = [
      { user_id: "a", id: "00003a_r" },
      { user_id: "a:", id: "00005fr" },
      { user_id: "a_", id: "b" },
      { user_id: "a", id: "_b" },
      { user_id: "a b", id: "c" },
      { user_id: "a", id: "b c" },
    ];
    expect(new Set(rows.map(rowKey)).size).toBe(rows.length);
  });
});
