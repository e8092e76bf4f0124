// The only code that touches a conversation object's SQLite. Queries are named by
// intent; terminal run statuses are compare-and-set so a replaced run can never
// overwrite what its replacement decided.
import { and, asc, desc, eq, gte, inArray, isNull, sql } from "drizzle-orm";
import type { DrizzleSqliteDODatabase } from "drizzle-orm/durable-sqlite";
import type { ChatMessage, FinishReason, ImagePart, Usage } from "../../provider/types.ts";
import {
  clientBlobs,
  contextBlobs,
  imageDescriptions,
  conversations,
  llmCalls,
  messageImages,
  messages,
  requestContexts,
  runs,
  type LlmCallStatus,
  type RunStatus,
} from "./schema.ts";
import { concatBytes } from "../../core/bytes.ts";
import { ImageCache } from "./image-cache.ts";
import { bytesForRow, partsOwner, readBytes, readText, textForRow, writeParts } from "./chunked-values.ts";
import type { RunRecord } from "../../hosting/store/usage-rows.ts";

export type Db = DrizzleSqliteDODatabase<Record<string, never>>;

/** Characters of base64 per message_images row: far below the 2 MB row limit. */
const IMAGE_CHUNK_CHARS = 512 * 1024;
/** value_parts owners (src/cursor/store/chunked-values.ts) of a message's payload and tool card, by seq. */
const PAYLOAD_PARTS = "message-payload";
const TOOL_CARD_PARTS = "message-tool-card";
/** value_parts owner of a large request-context part, by blob id. */
const CONTEXT_BLOB_PARTS = "context-blob";
/** Bytes per request_contexts row: far below the 2 MB row limit. */
const CONTEXT_CHUNK_BYTES = 1024 * 1024;

export interface NewRun {
  runId: string;
  conversationId: string;
  requestId: string;
  model: string;
  /** The principal's team; null (or absent) for "local". */
  teamId?: string | null;
}

/** A run a restart cut off, as its recovery recorded it failed: what its usage record needs. */
export interface InterruptedRun {
  runId: string;
  conversationId: string;
  model: string;
  principal: string;
  teamId: string | null;
  /** The provider's counts of the run's calls that reported any. */
  usage: Usage;
  /** completed when the run's answer was already in the history (a restart in the checkpoint tail). */
  status: "completed" | "failed";
}

export interface NewLlmCall {
  callId: string;
  runId: string;
  conversationId: string;
  providerCallIndex: number;
  attempt: number;
  providerType: string;
  providerUrl: string;
  /** The key it used (src/provider/model-keys.ts keyIdOf); null: the model's one BYOK key. */
  credentialId: string | null;
  modelId: string;
  displayName: string;
  messageCount: number;
  toolCount: number;
}

export interface LlmCallOutcome {
  status: Exclude<LlmCallStatus, "running">;
  finishReason?: FinishReason;
  httpStatus?: number;
  ttfbMs?: number;
  ttftMs?: number;
  ttfrMs?: number;
  usage?: Usage;
  /** The usage is byok-edge's estimate: the provider reported none (docs/hosting.md#limits). */
  usageEstimated?: boolean;
  error?: string;
}

export interface StoredMessage {
  seq: number;
  messageKey: string | null;
  message: ChatMessage;
  /** Serialized ToolCall card of a tool message, for Cursor's turn structures. */
  toolCard: Uint8Array | null;
  requestId: string | null;
  mode: number | null;
}

export interface NewMessage {
  message: ChatMessage;
  messageKey?: string;
  toolCard?: Uint8Array;
  mode?: number;
}

export class ConversationStore {
  readonly #images = new ImageCache();
  /**
   * The live branch per conversation, as last read while a run is live: a run reads it
   * several times per model call, and this object is its only writer, so every write
   * below drops it, and so does the run's end (docs/architecture.md#history-in-memory).
   * Frozen, so no reader can change it for the next.
   */
  readonly #live = new Map<string, readonly StoredMessage[]>();

  constructor(readonly db: Db) {}

  ensureConversation(conversationId: string, principal: string): void {
    this.db.insert(conversations).values({ conversationId, principal, createdAtMs: Date.now() }).onConflictDoNothing().run();
  }

  conversation(conversationId: string) {
    return this.db.select().from(conversations).where(eq(conversations.conversationId, conversationId)).get();
  }

  /**
   * Makes `run` the conversation's active run. A previously active run that is
   * still running becomes `cancelled`, with its running llm_calls.
   */
  claimRun(run: NewRun): void {
    const now = Date.now();
    this.db.transaction((tx) => {
      const current = tx
        .select({ activeRunId: conversations.activeRunId })
        .from(conversations)
        .where(eq(conversations.conversationId, run.conversationId))
        .get();
      const previous = current?.activeRunId ?? null;
      if (previous && previous !== run.runId) {
        const cancelled = tx
          .update(runs)
          .set({ status: "cancelled", finishedAtMs: now, failureMessage: "replaced by a newer run" })
          .where(and(eq(runs.runId, previous), eq(runs.status, "running")))
          .returning({ runId: runs.runId })
          .all();
        if (cancelled.length > 0) cancelRunningCalls(tx, [previous], now);
      }
      tx.insert(runs)
        .values({ ...run, status: "running", createdAtMs: now })
        .run();
      tx.update(conversations)
        .set({ activeRunId: run.runId, lastModel: run.model })
        .where(eq(conversations.conversationId, run.conversationId))
        .run();
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
      if (run?.status !== "running") return false;
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

  /** The most recent run started by a request, if any. */
  latestRunOfRequest(requestId: string) {
    return this.db.select().from(runs).where(eq(runs.requestId, requestId)).orderBy(desc(runs.createdAtMs)).get();
  }

  /**
   * Records as failed every run still `running` that no live run of this object owns
   * (after a restart: all of them), and returns them for their usage records.
   */
  recoverInterruptedRuns(owned: ReadonlySet<string> = new Set()): InterruptedRun[] {
    const now = Date.now();
    return this.db.transaction((tx) => {
      const stuck = tx
        .select({
          runId: runs.runId,
          conversationId: runs.conversationId,
          model: runs.model,
          teamId: runs.teamId,
          principal: conversations.principal,
        })
        .from(runs)
        .leftJoin(conversations, eq(conversations.conversationId, runs.conversationId))
        .where(eq(runs.status, "running"))
        .all()
        .filter((run) => !owned.has(run.runId));
      if (stuck.length === 0) return [];
      const ids = stuck.map((run) => run.runId);
      // A run whose answer is stored had done all but send its last checkpoint: it completed.
      const answered = new Set(ids.filter((id) => this.#endsWithAnswer(id)));
      const failed = ids.filter((id) => !answered.has(id));
      if (answered.size > 0) {
        tx.update(runs)
          .set({ status: "completed", finishedAtMs: now })
          .where(and(inArray(runs.runId, [...answered]), eq(runs.status, "running")))
          .run();
      }
      if (failed.length > 0) {
        tx.update(runs)
          .set({
            status: "failed",
            finishedAtMs: now,
            failureCode: "aborted",
            failureMessage: "interrupted by a restart of the conversation object",
          })
          .where(and(inArray(runs.runId, failed), eq(runs.status, "running")))
          .run();
      }
      cancelRunningCalls(tx, ids, now);
      tx.update(conversations).set({ activeRunId: null }).where(inArray(conversations.activeRunId, ids)).run();
      return stuck.map((run) => ({
        runId: run.runId,
        conversationId: run.conversationId,
        model: run.model,
        principal: run.principal ?? "",
        teamId: run.teamId ?? null,
        usage: callUsage(tx, run.runId),
        status: answered.has(run.runId) ? ("completed" as const) : ("failed" as const),
      }));
    });
  }

  /** The run's last live message is the model's answer: text, no tool call waiting for a result. */
  #endsWithAnswer(runId: string): boolean {
    const row = this.db
      .select({ ...MESSAGE_ROW, role: messages.role })
      .from(messages)
      .where(and(eq(messages.runId, runId), isNull(messages.supersededByRunId)))
      .orderBy(desc(messages.seq))
      .limit(1)
      .get();
    return row?.role === "assistant" && isAnswer(this.#stored(row, null).message);
  }

  /** What the run's provider calls counted, summed (docs/hosting.md#limits). */
  runUsage(runId: string): Usage {
    return callUsage(this.db, runId);
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

  /**
   * Settles a call that is still running; a call already cancelled by a replacement stays so,
   * but still gets the tokens it counts (docs/hosting.md#limits).
   */
  finishLlmCall(callId: string, outcome: LlmCallOutcome): void {
    const now = Date.now();
    const row = this.db
      .select({ createdAtMs: llmCalls.createdAtMs, status: llmCalls.status })
      .from(llmCalls)
      .where(eq(llmCalls.callId, callId))
      .get();
    if (!row) return;
    if (row.status !== "running") {
      if (outcome.usage) this.#countCancelledCall(callId, outcome.usage, outcome.usageEstimated === true);
      return;
    }
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
        usageEstimated: outcome.usageEstimated ?? null,
        error: outcome.error ?? null,
      })
      .where(and(eq(llmCalls.callId, callId), eq(llmCalls.status, "running")))
      .run();
  }

  /** The tokens of a call its run's replacement already marked cancelled, once. */
  #countCancelledCall(callId: string, usage: Usage, estimated: boolean): void {
    this.db
      .update(llmCalls)
      .set({ ...usageColumns(usage), usageEstimated: estimated })
      .where(and(eq(llmCalls.callId, callId), isNull(llmCalls.inputTokens)))
      .run();
  }

  /** A run's request, start and provider calls with their timings and token counts (no text), for the D1 records. */
  runRecord(runId: string): RunRecord | undefined {
    const run = this.db.select({ requestId: runs.requestId, startedAtMs: runs.createdAtMs }).from(runs).where(eq(runs.runId, runId)).get();
    if (!run) return undefined;
    const calls = this.db
      .select({
        callId: llmCalls.callId,
        model: llmCalls.displayName,
        providerType: llmCalls.providerType,
        credentialId: llmCalls.credentialId,
        status: llmCalls.status,
        httpStatus: llmCalls.httpStatus,
        finishReason: llmCalls.finishReason,
        attempt: llmCalls.attempt,
        createdAtMs: llmCalls.createdAtMs,
        ttfbMs: llmCalls.ttfbMs,
        ttftMs: llmCalls.ttftMs,
        durationMs: llmCalls.durationMs,
        inputTokens: llmCalls.inputTokens,
        outputTokens: llmCalls.outputTokens,
        cacheReadTokens: llmCalls.cacheReadTokens,
        cacheWriteTokens: llmCalls.cacheWriteTokens,
        reasoningTokens: llmCalls.reasoningTokens,
        usageEstimated: llmCalls.usageEstimated,
      })
      .from(llmCalls)
      .where(eq(llmCalls.runId, runId))
      .orderBy(asc(llmCalls.providerCallIndex), asc(llmCalls.attempt))
      .all();
    return { ...run, calls };
  }

  /** The live branch of the history, oldest first. */
  history(conversationId: string): readonly StoredMessage[] {
    let live = this.#live.get(conversationId);
    if (!live) {
      live = deepFreeze(this.#readHistory(conversationId));
      this.#live.set(conversationId, live);
    }
    return live;
  }

  /** Drops the kept copy (a run ended): an idle object holds no history in memory. */
  releaseHistory(conversationId: string): void {
    this.#live.delete(conversationId);
  }

  #readHistory(conversationId: string): StoredMessage[] {
    return this.db
      .select({ ...MESSAGE_ROW, requestId: runs.requestId })
      .from(messages)
      .leftJoin(runs, eq(runs.runId, messages.runId))
      .where(and(eq(messages.conversationId, conversationId), isNull(messages.supersededByRunId)))
      .orderBy(asc(messages.seq))
      .all()
      .map((row) => this.#withImages(this.#stored(row, row.requestId)));
  }

  /** Messages moved out of the live branch by `by` (a branching run, or a compaction), oldest first. */
  supersededBy(by: string): StoredMessage[] {
    return this.db
      .select()
      .from(messages)
      .where(eq(messages.supersededByRunId, by))
      .orderBy(asc(messages.seq))
      .all()
      .map((row) => this.#withImages(this.#stored(row, null)));
  }

  /** The key of the live summary message, if the history was compacted. */
  liveSummaryKey(conversationId: string): string | undefined {
    const row = this.db
      .select({ key: messages.messageKey })
      .from(messages)
      .where(
        and(eq(messages.conversationId, conversationId), isNull(messages.supersededByRunId), sql`${messages.messageKey} LIKE 'summary:%'`),
      )
      .orderBy(desc(messages.seq))
      .get();
    return row?.key ?? undefined;
  }

  /** The client holds a checkpoint of `roots` root messages: the longest copy of ours it may send back. */
  noteCheckpoint(conversationId: string, roots: number): void {
    this.db.update(conversations).set({ checkpointRoots: roots }).where(eq(conversations.conversationId, conversationId)).run();
  }

  countSummary(conversationId: string): void {
    this.db
      .update(conversations)
      .set({ summaryCount: sql`${conversations.summaryCount} + 1` })
      .where(eq(conversations.conversationId, conversationId))
      .run();
  }

  /** A message of the live branch by its idempotency key. */
  findByKey(conversationId: string, messageKey: string): StoredMessage | undefined {
    const row = this.db
      .select()
      .from(messages)
      .where(and(eq(messages.conversationId, conversationId), eq(messages.messageKey, messageKey), isNull(messages.supersededByRunId)))
      .get();
    return row ? this.#withImages(this.#stored(row, null)) : undefined;
  }

  /**
   * Branches the history before `seq`: that message and everything after it leave
   * the live branch (kept, marked with the run that branched), so the prefix
   * before it is unchanged. `by`: the run that branched, or the compaction that replaced them.
   */
  branchBefore(conversationId: string, seq: number, by: string): void {
    this.#live.delete(conversationId);
    this.db
      .update(messages)
      .set({ supersededByRunId: by })
      .where(and(eq(messages.conversationId, conversationId), gte(messages.seq, seq), isNull(messages.supersededByRunId)))
      .run();
  }

  ackedBlobs(ids: string[]): Set<string> {
    if (ids.length === 0) return new Set();
    const found = new Set<string>();
    // SQLite caps bound parameters at 100 per statement in Durable Objects.
    for (let i = 0; i < ids.length; i += 90) {
      const rows = this.db
        .select({ id: clientBlobs.blobId })
        .from(clientBlobs)
        .where(inArray(clientBlobs.blobId, ids.slice(i, i + 90)))
        .all();
      for (const row of rows) found.add(row.id);
    }
    return found;
  }

  markBlobsAcked(ids: string[]): void {
    const now = Date.now();
    this.db.transaction((tx) => {
      for (const blobId of ids) tx.insert(clientBlobs).values({ blobId, ackedAtMs: now }).onConflictDoNothing().run();
    });
  }

  /** A request-context part fetched from the client earlier, by hex blob id. */
  contextBlob(blobId: string): Uint8Array | undefined {
    const row = this.db
      .select({ data: contextBlobs.data, parts: contextBlobs.parts })
      .from(contextBlobs)
      .where(eq(contextBlobs.blobId, blobId))
      .get();
    if (!row) return undefined;
    return row.parts > 0 ? readBytes(this.db, partsOwner(CONTEXT_BLOB_PARTS, blobId), row.parts) : row.data;
  }

  /** Keeps a fetched request-context part (a large one in parts); content-addressed, so a second write changes nothing. */
  putContextBlob(blobId: string, data: Uint8Array): void {
    const stored = bytesForRow(data);
    this.db.transaction((tx) => {
      const row = tx
        .insert(contextBlobs)
        .values({ blobId, data: stored.inline, parts: stored.parts.length, fetchedAtMs: Date.now() })
        .onConflictDoNothing()
        .returning({ blobId: contextBlobs.blobId })
        .get();
      if (row && stored.parts.length > 0) writeParts(tx, partsOwner(CONTEXT_BLOB_PARTS, blobId), stored.parts);
    });
  }

  /** What the image model wrote about an image before (key: image hash and model), if it did. */
  imageDescription(key: string): string | undefined {
    return this.db.select({ d: imageDescriptions.description }).from(imageDescriptions).where(eq(imageDescriptions.key, key)).get()?.d;
  }

  putImageDescription(key: string, description: string): void {
    this.db.insert(imageDescriptions).values({ key, description, createdAtMs: Date.now() }).onConflictDoNothing().run();
  }

  /** The serialized request context in force, if a run has resolved one. */
  requestContext(conversationId: string): Uint8Array | undefined {
    const rows = this.db
      .select({ data: requestContexts.data })
      .from(requestContexts)
      .where(eq(requestContexts.conversationId, conversationId))
      .orderBy(asc(requestContexts.chunk))
      .all();
    if (rows.length === 0) return undefined;
    return concatBytes(rows.map((row) => row.data));
  }

  /** Replaces the request context in force; the same digest again writes nothing. */
  putRequestContext(conversationId: string, data: Uint8Array, digest: string): void {
    const where = eq(requestContexts.conversationId, conversationId);
    const current = this.db.select({ digest: requestContexts.digest }).from(requestContexts).where(where).get();
    if (current?.digest === digest) return;
    const now = Date.now();
    this.db.transaction((tx) => {
      tx.delete(requestContexts).where(where).run();
      for (let chunk = 0; chunk === 0 || chunk * CONTEXT_CHUNK_BYTES < data.byteLength; chunk++) {
        const part = data.slice(chunk * CONTEXT_CHUNK_BYTES, (chunk + 1) * CONTEXT_CHUNK_BYTES);
        tx.insert(requestContexts).values({ conversationId, chunk, digest, data: part, storedAtMs: now }).run();
      }
    });
  }

  /** Appends messages in one transaction; a message whose key exists is skipped (exactly once). */
  appendMessages(conversationId: string, runId: string, items: NewMessage[]): void {
    const now = Date.now();
    this.#live.delete(conversationId);
    this.db.transaction((tx) => {
      for (const item of items) {
        const images = imagesOf(item.message);
        // Too large for one row (an answer of many MiB, a huge tool result): in parts, same transaction.
        const payload = textForRow(JSON.stringify(images.length > 0 ? withImageData(item.message, () => "") : item.message));
        const card = item.toolCard ? bytesForRow(item.toolCard) : undefined;
        const row = tx
          .insert(messages)
          .values({
            conversationId,
            runId,
            messageKey: item.messageKey ?? null,
            role: item.message.role,
            payloadJson: payload.inline,
            payloadParts: payload.parts.length,
            toolCard: card?.inline ?? null,
            toolCardParts: card?.parts.length ?? 0,
            mode: item.mode ?? null,
            createdAtMs: now,
          })
          .onConflictDoNothing()
          .returning({ seq: messages.seq })
          .get();
        if (!row) continue; // its key exists: stored before, with its images and parts
        // A new seq (AUTOINCREMENT never reuses one) owns no parts yet: only large values write any.
        if (payload.parts.length > 0) writeParts(tx, partsOwner(PAYLOAD_PARTS, row.seq), payload.parts);
        if (card && card.parts.length > 0) writeParts(tx, partsOwner(TOOL_CARD_PARTS, row.seq), card.parts);
        for (const [image, { data }] of images.entries()) {
          for (let chunk = 0; chunk * IMAGE_CHUNK_CHARS < data.length; chunk++) {
            const part = data.slice(chunk * IMAGE_CHUNK_CHARS, (chunk + 1) * IMAGE_CHUNK_CHARS);
            tx.insert(messageImages).values({ seq: row.seq, image, chunk, data: part }).run();
          }
        }
      }
    });
  }

  /** A message row as stored, its payload and tool card read back from their parts when they have any. */
  #stored(row: MessageRow, requestId: string | null): StoredMessage {
    const payloadJson = row.payloadParts > 0 ? readText(this.db, partsOwner(PAYLOAD_PARTS, row.seq), row.payloadParts) : row.payloadJson;
    const toolCard = row.toolCardParts > 0 ? readBytes(this.db, partsOwner(TOOL_CARD_PARTS, row.seq), row.toolCardParts) : row.toolCard;
    return {
      seq: row.seq,
      messageKey: row.messageKey,
      message: JSON.parse(payloadJson) as ChatMessage,
      toolCard: toolCard ?? null,
      requestId,
      mode: row.mode ?? null,
    };
  }

  /** The message with the image data its payload leaves out, from the cache or read back from message_images. */
  #withImages(stored: StoredMessage): StoredMessage {
    const count = imagesOf(stored.message).length;
    if (count === 0) return stored;
    let data = this.#images.get(stored.seq);
    if (!data) {
      const rows = this.db
        .select()
        .from(messageImages)
        .where(eq(messageImages.seq, stored.seq))
        .orderBy(asc(messageImages.image), asc(messageImages.chunk))
        .all();
      const joined = Array.from({ length: count }, () => "");
      for (const row of rows) if (row.image < count) joined[row.image] += row.data;
      this.#images.set(stored.seq, joined);
      data = joined;
    }
    const images = data;
    return { ...stored, message: withImageData(stored.message, (index) => images[index] ?? "") };
  }
}

function imagesOf(message: ChatMessage): ImagePart[] {
  return (message.role === "user" || message.role === "tool") && message.images ? message.images : [];
}

/** The message with each image's data replaced, keeping every other byte of it. */
function withImageData(message: ChatMessage, data: (index: number) => string): ChatMessage {
  if (message.role !== "user" && message.role !== "tool") return message;
  return { ...message, images: imagesOf(message).map((image, index) => ({ ...image, data: data(index) })) };
}

/** The columns a stored message is read back from (#stored). */
const MESSAGE_ROW = {
  seq: messages.seq,
  messageKey: messages.messageKey,
  payloadJson: messages.payloadJson,
  payloadParts: messages.payloadParts,
  toolCard: messages.toolCard,
  toolCardParts: messages.toolCardParts,
  mode: messages.mode,
};

/** The model's answer: an assistant message with no tool call waiting for a result. */
export function isAnswer(message: ChatMessage | undefined): boolean {
  return message?.role === "assistant" && !message.toolCalls?.length;
}

type MessageRow = Pick<
  typeof messages.$inferSelect,
  "seq" | "messageKey" | "payloadJson" | "payloadParts" | "toolCard" | "toolCardParts" | "mode"
>;

/** The sum of the token counts the provider reported for a run's calls. */
function callUsage(tx: Pick<Db, "select">, runId: string): Usage {
  const row = tx
    .select({
      inputTokens: sql<number>`coalesce(sum(${llmCalls.inputTokens}), 0)`,
      outputTokens: sql<number>`coalesce(sum(${llmCalls.outputTokens}), 0)`,
      cacheReadTokens: sql<number>`coalesce(sum(${llmCalls.cacheReadTokens}), 0)`,
      cacheWriteTokens: sql<number>`coalesce(sum(${llmCalls.cacheWriteTokens}), 0)`,
      reasoningTokens: sql<number>`coalesce(sum(${llmCalls.reasoningTokens}), 0)`,
    })
    .from(llmCalls)
    .where(eq(llmCalls.runId, runId))
    .get();
  return row ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
}

function usageColumns(usage: Usage) {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cacheReadTokens: usage.cacheReadTokens,
    cacheWriteTokens: usage.cacheWriteTokens,
    reasoningTokens: usage.reasoningTokens,
  };
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

/** Freezes a value and everything in it (byte arrays cannot be frozen; they are left as they are). */
function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value) || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
