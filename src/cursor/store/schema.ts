// Tables of one conversation object's SQLite (drizzle, durable-sqlite). Each
// object holds exactly one conversation, but rows still carry conversation_id so
// that queries read plainly and exports stay self-describing.
import { sql } from "drizzle-orm";
import { customType, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** BLOB columns as Uint8Array (DO SQLite hands back ArrayBuffers). */
const bytes = customType<{ data: Uint8Array; driverData: ArrayBuffer | Uint8Array }>({
  dataType: () => "blob",
  toDriver: (value) => value,
  fromDriver: (value) => new Uint8Array(value),
});

export const conversations = sqliteTable("conversations", {
  conversationId: text("conversation_id").primaryKey(),
  principal: text("principal").notNull(),
  activeRunId: text("active_run_id"),
  lastModel: text("last_model"),
  /** How many times the history was replaced by a summary (self_summary_count). */
  summaryCount: integer("summary_count").notNull().default(0),
  /**
   * How many root messages the last checkpoint sent to the client held: a client copy shorter than
   * that was cropped by the user (docs/protocol.md#the-clients-copy). Null: none sent yet.
   */
  checkpointRoots: integer("checkpoint_roots"),
  createdAtMs: integer("created_at_ms").notNull(),
});

export type RunStatus = "running" | "completed" | "cancelled" | "failed";

export const runs = sqliteTable(
  "runs",
  {
    runId: text("run_id").primaryKey(),
    conversationId: text("conversation_id").notNull(),
    requestId: text("request_id").notNull(),
    status: text("status").$type<RunStatus>().notNull(),
    model: text("model").notNull(),
    /** The principal's team (null for "local"), so a run finished after a restart is recorded like any other. */
    teamId: text("team_id"),
    providerCallIndex: integer("provider_call_index").notNull().default(0),
    usageJson: text("usage_json"),
    failureCode: text("failure_code"),
    failureMessage: text("failure_message"),
    createdAtMs: integer("created_at_ms").notNull(),
    finishedAtMs: integer("finished_at_ms"),
  },
  (t) => [index("runs_by_status").on(t.status)],
);

export type LlmCallStatus = "running" | "completed" | "cancelled" | "failed";

/** One row per provider attempt, with its timings and the provider's own token counts. */
export const llmCalls = sqliteTable(
  "llm_calls",
  {
    callId: text("call_id").primaryKey(),
    runId: text("run_id").notNull(),
    conversationId: text("conversation_id").notNull(),
    providerCallIndex: integer("provider_call_index").notNull(),
    attempt: integer("attempt").notNull().default(0),
    providerType: text("provider_type").notNull(),
    providerUrl: text("provider_url").notNull(),
    /** The key the attempt used (docs/providers.md#keys-behind-one-model): a stored credential's id or a BYOK_MODELS key's label; null: the model's one BYOK key. */
    credentialId: text("credential_id"),
    modelId: text("model_id").notNull(),
    displayName: text("display_name").notNull(),
    status: text("status").$type<LlmCallStatus>().notNull(),
    finishReason: text("finish_reason"),
    messageCount: integer("message_count").notNull(),
    toolCount: integer("tool_count").notNull(),
    httpStatus: integer("http_status"),
    createdAtMs: integer("created_at_ms").notNull(),
    ttfbMs: integer("ttfb_ms"),
    ttftMs: integer("ttft_ms"),
    ttfrMs: integer("ttfr_ms"),
    finishedAtMs: integer("finished_at_ms"),
    durationMs: integer("duration_ms"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    cacheReadTokens: integer("cache_read_tokens"),
    cacheWriteTokens: integer("cache_write_tokens"),
    reasoningTokens: integer("reasoning_tokens"),
    /** The tokens are byok-edge's estimate: the provider reported no usage (docs/hosting.md#limits). */
    usageEstimated: integer("usage_estimated", { mode: "boolean" }),
    error: text("error"),
  },
  (t) => [index("llm_calls_by_run").on(t.runId)],
);

/**
 * The append-only model history. payload_json is the ChatMessage exactly as it
 * was first sent to the provider; it is never rewritten, so prompt caches keep hitting.
 * Image data is the exception: it lives in message_images, its place in payload_json left "".
 * A payload or tool card too large for one row lives in value_parts (src/cursor/store/chunked-values.ts):
 * its column is left empty and its part count kept here.
 */
export const messages = sqliteTable(
  "messages",
  {
    seq: integer("seq").primaryKey({ autoIncrement: true }),
    conversationId: text("conversation_id").notNull(),
    /** Idempotency key, e.g. `cursor:user:<message_id>`; null for model output. */
    messageKey: text("message_key"),
    runId: text("run_id"),
    role: text("role").notNull(),
    payloadJson: text("payload_json").notNull(),
    /** 0: payload_json holds the payload; else it is "" and the payload is in this many value_parts. */
    payloadParts: integer("payload_parts").notNull().default(0),
    /** The serialized ToolCall card of a tool message: its step in Cursor's turn structure. */
    toolCard: bytes("tool_card"),
    /** 0: tool_card holds the card (or null: none); else it is empty and in this many value_parts. */
    toolCardParts: integer("tool_card_parts").notNull().default(0),
    /** Cursor's agent mode of a user message, so its turn blob never changes afterwards. */
    mode: integer("mode"),
    /** Set when an edited, re-sent earlier message branched the history before this one. */
    supersededByRunId: text("superseded_by_run_id"),
    createdAtMs: integer("created_at_ms").notNull(),
  },
  // Keys are unique on the live branch only: an edited message re-uses its key.
  (t) => [
    uniqueIndex("messages_live_key")
      .on(t.conversationId, t.messageKey)
      .where(sql`message_key IS NOT NULL AND superseded_by_run_id IS NULL`),
  ],
);

/**
 * The images of a message (`images[image].data` of its payload), in base64 chunks so
 * that no row comes near DO SQLite's 2 MB limit, however large the image.
 */
export const messageImages = sqliteTable(
  "message_images",
  {
    seq: integer("seq").notNull(),
    image: integer("image").notNull(),
    chunk: integer("chunk").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.seq, t.image, t.chunk] })],
);

/**
 * The parts of values too large for one row (src/cursor/store/chunked-values.ts), by owner (the
 * owning row's kind and key as JSON, e.g. `["message-payload",12]`) and number, 0, 1, ….
 */
export const valueParts = sqliteTable(
  "value_parts",
  {
    owner: text("owner").notNull(),
    part: integer("part").notNull(),
    data: bytes("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.part] })],
);

/** Blobs the client has acknowledged (set_blob_result); they need not be sent again. */
export const clientBlobs = sqliteTable("client_blobs", {
  blobId: text("blob_id").primaryKey(),
  ackedAtMs: integer("acked_at_ms").notNull(),
});

/**
 * Request-context parts fetched from the client (docs/request-context.md): one
 * serialized part message per blob id, so a part is fetched once per conversation. A part too
 * large for one row is in value_parts: `data` is empty and `parts` counts them.
 */
export const contextBlobs = sqliteTable("context_blobs", {
  blobId: text("blob_id").primaryKey(),
  data: bytes("data").notNull(),
  parts: integer("parts").notNull().default(0),
  fetchedAtMs: integer("fetched_at_ms").notNull(),
});

/**
 * What an image model wrote about an image, for a text-only model (docs/providers.md#images-for-text-only-models):
 * once per image, keyed by the SHA-256 of its bytes and the describing model's name.
 */
export const imageDescriptions = sqliteTable("image_descriptions", {
  key: text("key").primaryKey(),
  description: text("description").notNull(),
  createdAtMs: integer("created_at_ms").notNull(),
});

/**
 * The request context in force (docs/request-context.md): the last one a run resolved,
 * serialized, for a run whose action carries none. In chunks, so no row nears the 2 MB
 * limit; `digest` (of the whole) is on every chunk, so an unchanged context writes nothing.
 */
export const requestContexts = sqliteTable(
  "request_contexts",
  {
    conversationId: text("conversation_id").notNull(),
    chunk: integer("chunk").notNull(),
    digest: text("digest").notNull(),
    data: bytes("data").notNull(),
    storedAtMs: integer("stored_at_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.chunk] })],
);

/**
 * Code mode in this conversation's runs (docs/code-mode.md#cursor-runs): the host generation
 * (bumped when the object restarts with cells live, so later cell ids are `g2:1`, …), whether
 * cells are live now, and whether the model has yet to be told its runtime was replaced.
 */
export const codeModeState = sqliteTable("code_mode_state", {
  conversationId: text("conversation_id").primaryKey(),
  generation: integer("generation").notNull().default(1),
  liveCells: integer("live_cells").notNull().default(0),
  replacedNoticePending: integer("replaced_notice_pending", { mode: "boolean" }).notNull().default(false),
  updatedAtMs: integer("updated_at_ms").notNull(),
});

/**
 * The stored values of code-mode cells (`store`/`load`), JSON by key; they survive restarts.
 * A value too large for one row is in value_parts: value_json is "" and `parts` counts them.
 */
export const codeModeValues = sqliteTable(
  "code_mode_values",
  {
    conversationId: text("conversation_id").notNull(),
    key: text("key").notNull(),
    valueJson: text("value_json").notNull(),
    parts: integer("parts").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.key] })],
);
