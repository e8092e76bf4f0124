// What a run costs from its model's prices per million tokens.
import { describe, expect, it } from "vitest";
import { runCostUsd } from "../../../src/hosting/config/model-prices.ts";

const usage = {
  inputTokens: 1_000_000,
  outputTokens: 200_000,
  cacheReadTokens: 600_000,
  cacheWriteTokens: 100_000,
  reasoningTokens: 50_000,
};

describe("run cost", () => {
  it("prices uncached input, cache reads, cache writes and output apart", () => {
    const cost = runCostUsd(usage, { inputPerMtok: 3, outputPerMtok: 15, cacheReadPerMtok: 0.3, cacheWritePerMtok: 3.75 });
    // 300k uncached × 3 + 600k × 0.3 + 100k × 3.75 + 200k × 15, per million.
    expect(cost).toBeCloseTo(0.9 + 0.18 + 0.375 + 3, 10);
  });

  it("charges cache tokens at the input price when no cache price is set", () => {
    expect(runCostUsd(usage, { inputPerMtok: 2, outputPerMtok: null, cacheReadPerMtok: null, cacheWritePerMtok: null })).toBeCloseTo(2, 10);
  });

  it("is 0 for a model without prices", () => {
    expect(runCostUsd(usage, undefined)).toBe(0);
  });
});
