// The edge's byte budget for appends waiting for their run_request (src/cursor/routes/waiting-bytes.ts):
// per principal and per isolate, each refusal naming its cap, and released bytes free again.
import { describe, expect, it } from "vitest";
import { WaitingBytes } from "../../../src/cursor/routes/waiting-bytes.ts";

describe("WaitingBytes", () => {
  it("refuses past a principal's cap while others still fit, and past the isolate's cap for everyone", () => {
    const budget = new WaitingBytes(100, 150);
    const a = budget.take("alice", 80);
    expect(budget.take("alice", 30)).toEqual({ over: "principal", maxBytes: 100 });
    const b = budget.take("bob", 60);
    expect("release" in b).toBe(true);
    expect(budget.take("carol", 20)).toEqual({ over: "isolate", maxBytes: 150 });
    if ("release" in a) a.release();
    expect("release" in budget.take("carol", 20)).toBe(true);
  });

  it("frees a hold once, however often it is released", () => {
    const budget = new WaitingBytes(100, 100);
    const held = budget.take("alice", 60);
    if (!("release" in held)) throw new Error("expected the hold to fit");
    held.release();
    held.release();
    const again = budget.take("alice", 100);
    expect("release" in again).toBe(true);
    expect(budget.take("alice", 1)).toEqual({ over: "principal", maxBytes: 100 });
  });
});
