// Shared data in D1: what outlives one conversation. Usage is summed per run so a
// team can see spend per principal and model without opening conversation objects.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const usage = sqliteTable(
  "usage",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    principal: text("principal").notNull(),
    conversationId: text("conversation_id").notNull(),
    runId: text("run_id").notNull(),
    model: text("model").notNull(),
    status: text("status").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
    cacheReadTokens: integer("cache_read_tokens").notNull(),
    cacheWriteTokens: integer("cache_write_tokens").notNull(),
    reasoningTokens: integer("reasoning_tokens").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
  },
  (t) => [index("usage_by_principal").on(t.principal, t.createdAtMs)],
);
