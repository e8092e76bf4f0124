// Per-run usage into D1, so spend is visible across conversations. Best effort:
// a D1 hiccup must not fail a turn the user already saw complete.
import { drizzle } from "drizzle-orm/d1";
import { usage } from "./d1-schema.ts";
import { errorKind } from "../proto/connect/log-safe.ts";
import type { Usage } from "../provider/types.ts";

export interface RunUsage {
  principal: string;
  conversationId: string;
  runId: string;
  model: string;
  status: string;
  usage: Usage;
}

export async function recordRunUsage(db: D1Database, run: RunUsage): Promise<void> {
  try {
    const u = run.usage;
    await drizzle(db)
      .insert(usage)
      .values({
        principal: run.principal,
        conversationId: run.conversationId,
        runId: run.runId,
        model: run.model,
        status: run.status,
        inputTokens: u.inputTokens,
        outputTokens: u.outputTokens,
        cacheReadTokens: u.cacheReadTokens,
        cacheWriteTokens: u.cacheWriteTokens,
        reasoningTokens: u.reasoningTokens,
        createdAtMs: Date.now(),
      })
      .run();
  } catch (err) {
    console.error("byok-edge: could not record usage", run.runId, errorKind(err));
  }
}
