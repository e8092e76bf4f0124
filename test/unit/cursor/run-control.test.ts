// Steering a live run: what an injection interrupts (docs/protocol.md#interrupts, #compaction).
import { describe, expect, it } from "vitest";
import { RunControl, type Injection } from "../../../src/cursor/agent/run-control.ts";

const injection = (kind: Injection["kind"]): Injection => ({ id: `${kind}-1`, messageId: "", text: "more", kind });

describe("RunControl", () => {
  it("interrupts a compaction for the user's new message", () => {
    const control = new RunControl(new AbortController().signal, () => {});
    const signal = control.begin("compaction");
    expect(control.offer(injection("user"), { stopsTools: true })).toBe("injected");
    expect(control.interrupted(signal)).toBe(true);
  });

  it("lets injected context wait for a compaction instead of interrupting it", () => {
    const control = new RunControl(new AbortController().signal, () => {});
    const signal = control.begin("compaction");
    expect(control.offer(injection("system"), { stopsTools: false })).toBe("injected");
    expect(signal.aborted).toBe(false);
    expect(control.take()).toHaveLength(1);
  });

  it("interrupts a model call for injected context", () => {
    const control = new RunControl(new AbortController().signal, () => {});
    const signal = control.begin("model");
    control.offer(injection("system"), { stopsTools: false });
    expect(control.interrupted(signal)).toBe(true);
  });
});
