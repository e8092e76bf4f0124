// What a run cost in USD from a model's prices per million tokens
// (docs/hosting.md#models-per-user). Input counts the whole prompt, cached parts
// included (docs/providers.md), so cache reads and writes are priced apart from
// the rest; a cache price that is not set falls back to the input price.
import type { Usage } from "../../provider/types.ts";

/** USD per million tokens; null: unknown (counts as 0). */
export interface ModelPrices {
  inputPerMtok: number | null;
  outputPerMtok: number | null;
  cacheReadPerMtok: number | null;
  cacheWritePerMtok: number | null;
}

export function runCostUsd(usage: Usage, prices: ModelPrices | undefined): number {
  if (!prices) return 0;
  const input = prices.inputPerMtok ?? 0;
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens);
  const micro =
    uncached * input +
    usage.cacheReadTokens * (prices.cacheReadPerMtok ?? input) +
    usage.cacheWriteTokens * (prices.cacheWritePerMtok ?? input) +
    usage.outputTokens * (prices.outputPerMtok ?? 0);
  return micro / 1_000_000;
}
