// How a run's tokens split over the models that ran its calls (docs/providers.md#fallbacks): a
// fallback's calls are charged to the fallback, the rest to the run's model. The run's own total
// stays what the run reported; only the ledger's rows per model are split.
import { emptyUsage, type Usage } from "../../provider/types.ts";

/** One model's part of a run. */
export interface UsageShare {
  model: string;
  usage: Usage;
}

const TOKEN_KEYS = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"] as const;

type CallTokens = { model: string; status: string } & { [K in (typeof TOKEN_KEYS)[number]]: number | null };

/** The run's model first, with what the other models' calls did not use; then each other model. */
export function usageShares(runModel: string, total: Usage, calls: readonly CallTokens[]): UsageShare[] {
  const others = new Map<string, Usage>();
  for (const call of calls) {
    // The run's total counts its answered calls: a fallback's share is its answered calls' tokens.
    if (call.model === runModel || call.status !== "completed") continue;
    const usage = others.get(call.model) ?? emptyUsage();
    for (const key of TOKEN_KEYS) usage[key] += call[key] ?? 0;
    others.set(call.model, usage);
  }
  const own = { ...total };
  for (const usage of others.values()) for (const key of TOKEN_KEYS) own[key] = Math.max(0, own[key] - usage[key]);
  return [{ model: runModel, usage: own }, ...[...others].map(([model, usage]) => ({ model, usage }))];
}
