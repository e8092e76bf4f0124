// The conversation's one active run: the seed's registry behaviour, in the one place it lives.
import { describe, expect, it } from "vitest";
import { ActiveRun } from "../../../src/cursor/session/active-run.ts";

describe("ActiveRun", () => {
  it("activating a second run on a conversation cancels the first and leaves the second; releasing the first does not touch the second; shutdown cancels the second", () => {
    const active = new ActiveRun();
    const first = new AbortController();
    const second = new AbortController();
    const run = (runId: string, c: AbortController) => ({ runId, cancel: (reason: string) => c.abort(reason) });
    active.activate(run("first", first));
    active.activate(run("second", second));
    expect(first.signal.aborted).toBe(true);
    expect(second.signal.aborted).toBe(false);
    active.release("first");
    expect(second.signal.aborted).toBe(false);
    expect(active.get("second")).toBeDefined();
    active.shutdown();
    expect(second.signal.aborted).toBe(true);
    expect(active.get("second")).toBeUndefined();
  });
});
