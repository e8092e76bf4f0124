// A cell's notifications are fire-and-forget for the cell, but the host holds each until
// its ack: the cell's signal tells it when nobody cares any more, so a long session's
// unacknowledged notifications do not pile up.
import { describe, expect, it } from "vitest";
import type { CellDelegate } from "../../../../src/code-mode/engine/engine-types.ts";
import { newSession, request } from "../../../support/code-mode-engine.ts";
import { withTimeout } from "../../../support/deferred.ts";

const T = 10_000;

/** Never acknowledges a notification; keeps the signal it was given. */
function unacknowledging(): CellDelegate & { signals: AbortSignal[] } {
  const signals: AbortSignal[] = [];
  return {
    signals,
    invokeTool: () => Promise.reject(new Error("no tools")),
    notify: (_notification, signal) => {
      signals.push(signal);
      return new Promise<void>(() => {});
    },
    cellClosed: () => {},
  };
}

describe("a code-mode cell's notifications", () => {
  it("are let go of when the cell completes normally", async () => {
    const session = newSession();
    const delegate = unacknowledging();
    const started = session.execute(request(`notify("one"); notify("two"); text("done")`), delegate);
    expect(await withTimeout(started.initialResponse, T, "the result")).toMatchObject({ kind: "completed", cellId: "1" });
    expect(delegate.signals).toHaveLength(2);
    expect(delegate.signals.every((signal) => signal.aborted)).toBe(true);
    await session.shutdown();
  });
});
