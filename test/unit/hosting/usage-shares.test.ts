// How a run's tokens split over the models that ran its calls (src/hosting/store/usage-shares.ts).
import { describe, expect, it } from "vitest";
import { usageShares } from "../../../src/hosting/store/usage-shares.ts";

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
});
const call = (model: string, input: number | null, output: number | null, status = "completed") => ({
  model,
  status,
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: null,
  cacheWriteTokens: null,
  reasoningTokens: null,
});

describe("usage shares", () => {
  it("charges a run whose calls all ran on its model to that model alone", () => {
    expect(usageShares("main", usage(100, 10), [call("main", 60, 5), call("main", 40, 5)])).toEqual([
      { model: "main", usage: usage(100, 10) },
    ]);
  });

  it("charges a fallback what its calls used, and the run's model the rest", () => {
    const shares = usageShares("main", usage(100, 10), [
      call("main", 30, 0),
      call("spare", 70, 10),
      call("spare", null, null),
      call("spare", 500, 0, "failed"),
    ]);
    expect(shares).toEqual([
      { model: "main", usage: usage(30, 0) },
      { model: "spare", usage: usage(70, 10) },
    ]);
  });

  it("never charges the run's model a negative share when the calls report more than the run", () => {
    expect(usageShares("main", usage(10, 1), [call("spare", 50, 5)])[0]).toEqual({ model: "main", usage: usage(0, 0) });
  });
});
