// The only code that touches a conversation object's SQLite. Queries are named by
// intent; terminal run statuses are compare-and-set so a replaced run can never
// overwrite what its replacement decided.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { ChatMessage, FinishReason, Usage } from "../provider/types.ts";
import { conversations, llmCalls, messages, runs, type LlmCallStatus, type RunStatus } from "./schema.ts";

export type Db = DrizzleSqliteDODatabase<Record<string, never>>;

export interface NewRun {
  runId: string;
  conversationId: string;
  requestId: string;
  model: string;
}

export interface NewLlmCall {
  callId: string;
  runId: string;
  conversationId: string;
  providerCallIndex: number;
  attempt: number;
  providerType: string;
  providerUrl: string;
  modelId: string;
  displayName: string;
  messageCount: number;
  toolCount: number;
  requestBytes?: number;
}

export interface LlmCallOutcome {
  status: Exclude<LlmCallStatus, "running">;
  finishReason?: FinishReason;
  httpStatus?: number;
  ttfbMs?: number;
  ttftMs?: number;
  ttfrMs?: number;
  usage?: Usage;
  error?: string;
}

export interface StoredMessage {
  seq: number;
  messageKey: string | null;
  message: ChatMessage;
}

export class ConversationStore {
  constructor(readonly db: Db) {}

  ensureConversation(conversationId: string, principal: string): void {
    this.db
      .insert(conversations)
      .values({ conversationId, principal, createdAtMs: Date.now() })
      .onConflictDoNothing()
      .run();
  }

  conversation(conversationId: string) {
    return this.db.select().from(conversations).where(eq(conversations.conversationId, conversationId)).get();
  }

  /**
   * Makes `run` the conversation's active run. A previously active run that is
   * still running becomes `cancelled`, with its running llm_calls.
   */
  claimRun(run: NewRun): { replacedRunId: string | null } {
    const now = Date.now();
    return this.db.transaction((tx) => {
      const current = tx
        .select({ activeRunId: conversations.activeRunId })
        .from(conversations)
        .where(eq(conversations.conversationId, run.conversationId))
        .get();
      const previous = current?.activeRunId ?? null;
      let replacedRunId: string | null = null;
      if (previous && previous !== run.runId) {
        const cancelled = tx
          .update(runs)
          .set({ status: "cancelled", finishedAtMs: now, failureMessage: "replaced by a newer run" })
          .where(and(eq(runs.runId, previous), eq(runs.status, "running")))
          .returning({ runId: runs.runId })
          .all();
        if (cancelled.length > 0) {
          replacedRunId = previous;
          cancelRunningCalls(tx, [previous], now);
        }
      }
      tx.insert(runs)
        .values({ ...run, status: "running", createdAtMs: now })
        .run();
      tx.update(conversations)
        .set({ activeRunId: run.runId, lastModel: run.model })
        .where(eq(conversations.conversationId, run.conversationId))
        .run();
      return { replacedRunId };
    });
  }

  /**
   * Writes a terminal status only if the run is still running and still the
   * conversation's active run; reports whether it won.
   */
  finishRun(
    runId: string,
    status: Exclude<RunStatus, "running">,
    details: { usage?: Usage; failureCode?: string; failureMessage?: string } = {},
  ): boolean {
    const now = Date.now();
    return this.db.transaction((tx) => {
      const run = tx.select().from(runs).where(eq(runs.runId, runId)).get();
      if (!run || run.status !== "running") return false;
      const conv = tx
        .select({ activeRunId: conversations.activeRunId })
        .from(conversations)
        .where(eq(conversations.conversationId, run.conversationId))
        .get();
      if (conv?.activeRunId !== runId) return false;
      tx.update(runs)
        .set({
          status,
          finishedAtMs: now,
          usageJson: details.usage ? JSON.stringify(details.usage) : null,
          failureCode: details.failureCode ?? null,
          failureMessage: details.failureMessage ?? null,
        })
        .where(and(eq(runs.runId, runId), eq(runs.status, "running")))
        .run();
      tx.update(conversations)
        .set({ activeRunId: null })
        .where(and(eq(conversations.conversationId, run.conversationId), eq(conversations.activeRunId, runId)))
        .run();
      if (status !== "completed") cancelRunningCalls(tx, [runId], now);
      return true;
    });
  }

  run(runId: string) {
    return this.db.select().from(runs).where(eq(runs.runId, runId)).get();
  }

  /** After a restart nothing is running any more: record interrupted runs as failed. */
  recoverInterruptedRuns(): string[] {
    const now = Date.now();
    const stuck = this.db
      .update(runs)
      .set({ status: "failed", finishedAtMs: now, failureCode: "aborted", failureMessage: "interrupted by a restart of the conversation object" })
      .where(eq(runs.status, "running"))
      .returning({ runId: runs.runId })
      .all()
      .map((r) => r.runId);
    if (stuck.length > 0) cancelRunningCalls(this.db, stuck, now);
    this.db.update(conversations).set({ activeRunId: null }).run();
    return stuck;
  }

  nextProviderCallIndex(runId: string): number {
    const row = this.db
      .update(runs)
      .set({ providerCallIndex: sql`${runs.providerCallIndex} + 1` })
      .where(eq(runs.runId, runId))
      .returning({ index: runs.providerCallIndex })
      .get();
    return (row?.index ?? 1) - 1;
  }

  startLlmCall(call: NewLlmCall): void {
    this.db
      .insert(llmCalls)
      .values({ ...call, status: "running", createdAtMs: Date.now() })
      .run();
  }

  /** Settles a call that is still running; a call already cancelled by a replacement stays so. */
  finishLlmCall(callId: string, outcome: LlmCallOutcome): void {
    const now = Date.now();
    const row = this.db.select({ createdAtMs: llmCalls.createdAtMs }).from(llmCalls).where(eq(llmCalls.callId, callId)).get();
    if (!row) return;
    this.db
      .update(llmCalls)
      .set({
        status: outcome.status,
        finishReason: outcome.finishReason ?? null,
        httpStatus: outcome.httpStatus ?? null,
        ttfbMs: outcome.ttfbMs ?? null,
        ttftMs: outcome.ttftMs ?? null,
        ttfrMs: outcome.ttfrMs ?? null,
        finishedAtMs: now,
        durationMs: now - row.createdAtMs,
        inputTokens: outcome.usage?.inputTokens ?? null,
        outputTokens: outcome.usage?.outputTokens ?? null,
        cacheReadTokens: outcome.usage?.cacheReadTokens ?? null,
        cacheWriteTokens: outcome.usage?.cacheWriteTokens ?? null,
        reasoningTokens: outcome.usage?.reasoningTokens ?? null,
        error: outcome.error ?? null,
      })
      .where(and(eq(llmCalls.callId, callId), eq(llmCalls.status, "running")))
      .run();
  }

  llmCallsOfRun(runId: string) {
    return this.db.select().from(llmCalls).where(eq(llmCalls.runId, runId)).orderBy(asc(llmCalls.createdAtMs)).all();
  }

  history(conversationId: string): StoredMessage[] {
    return this.db
      .select()
      .from(messages)
      .where(eq(messages.conversationId, conversationId))
      .orderBy(asc(messages.seq))
      .all()
      .map((row) => ({ seq: row.seq, messageKey: row.messageKey, message: JSON.parse(row.payloadJson) as ChatMessage }));
  }

  /** Appends messages in one transaction; a message whose key exists is skipped (exactly once). */
  appendMessages(
    conversationId: string,
    runId: string,
    items: { message: ChatMessage; messageKey?: string }[],
  ): void {
    const now = Date.now();
    this.db.transaction((tx) => {
      for (const item of items) {
        tx.insert(messages)
          .values({
            conversationId,
            runId,
            messageKey: item.messageKey ?? null,
            role: item.message.role,
            payloadJson: JSON.stringify(item.message),
            createdAtMs: now,
          })
          .onConflictDoNothing()
          .run();
      }
    });
  }

  hasMessageKey(conversationId: string, messageKey: string): boolean {
    return (
      this.db
        .select({ seq: messages.seq })
        .from(messages)
        .where(and(eq(messages.conversationId, conversationId), eq(messages.messageKey, messageKey)))
        .get() !== undefined
    );
  }
}

function cancelRunningCalls(tx: Pick<Db, "update">, runIds: string[], now: number): void {
  tx.update(llmCalls)
    .set({
      status: "cancelled",
      finishedAtMs: now,
      durationMs: sql`${now} - ${llmCalls.createdAtMs}`,
    })
    .where(and(inArray(llmCalls.runId, runIds), eq(llmCalls.status, "running")))
    .run();
}
