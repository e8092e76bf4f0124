// Stored values that cannot be read or kept: the cell still ends (it is never left
// live), with an error its caller can read.
import { describe, expect, it } from "vitest";
import { MemoryValues, newSession, RecordingDelegate, request, text } from "../../../support/code-mode-engine.ts";
import { withTimeout } from "../../../support/deferred.ts";

const T = 10_000;

class RefusingValues extends MemoryValues {
  readonly #refuse: "snapshot" | "commit";
  constructor(refuse: "snapshot" | "commit") {
    super();
    this.#refuse = refuse;
  }
  override snapshot(): Record<string, unknown> {
    if (this.#refuse === "snapshot") throw new Error("storage is unavailable");
    return super.snapshot();
  }
  override commit(writes: Record<string, unknown>): void {
    if (this.#refuse === "commit") throw new Error("string or blob too big");
    super.commit(writes);
  }
}

describe("a code-mode cell whose stored values fail", () => {
  it("completes with an error naming the failure when its writes cannot be committed, and closes", async () => {
    const session = newSession({}, new RefusingValues("commit"));
    const delegate = new RecordingDelegate();
    const started = session.execute(request(`store("k", "v"); text("done")`), delegate);
    expect(await withTimeout(started.initialResponse, T, "the result")).toEqual({
      kind: "completed",
      cellId: "1",
      items: [text("done")],
      errorText: "Unable to store the cell's values: string or blob too big",
    });
    expect(delegate.closed).toEqual(["1"]);
    await session.shutdown();
  });

  it("keeps the cell's own error first when its writes cannot be committed either", async () => {
    const session = newSession({}, new RefusingValues("commit"));
    const started = session.execute(request(`store("k", "v"); throw new Error("boom")`), new RecordingDelegate());
    const response = await withTimeout(started.initialResponse, T, "the result");
    const errorText = response.kind === "completed" ? response.errorText : undefined;
    expect(errorText).toMatch(/^Error: boom\n[\s\S]*\nUnable to store the cell's values: string or blob too big$/);
    await session.shutdown();
  });

  it("ends a cell whose stored values cannot be read instead of leaving it live", async () => {
    const session = newSession({}, new RefusingValues("snapshot"));
    const delegate = new RecordingDelegate();
    const started = session.execute(request(`text("never")`), delegate);
    await withTimeout(started.started, T, "the start");
    expect(await withTimeout(started.initialResponse, T, "the result")).toEqual({
      kind: "completed",
      cellId: "1",
      items: [],
      errorText: "exec runtime ended unexpectedly",
    });
    expect(delegate.closed).toEqual(["1"]);
    expect(session.runningCells).toBe(0);
    await session.shutdown();
  });
});
