// D1 tables of what hosted users call: stored provider credentials and the
// models on them, each owned by a user (scope "user") or by a team (scope
// "team", owner null). Filled by the credentials and models API (docs/hosting.md#seams).
import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { ProviderKind } from "../../../provider/types.ts";
import { teams, users } from "./accounts.ts";

export type Scope = "user" | "team";

export const credentials = sqliteTable(
  "credentials",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    /** The owning user for scope "user"; null for scope "team". */
    ownerUserId: text("owner_user_id").references(() => users.id),
    scope: text("scope").$type<Scope>().notNull(),
    name: text("name").notNull(),
    provider: text("provider").$type<ProviderKind>().notNull(),
    baseUrl: text("base_url").notNull(),
    /** Rows written before header values were sealed: extra request headers as a plain JSON object, until the next write. */
    headersJson: text("headers_json"),
    /** Extra request headers (never auth or hop-by-hop ones) as a JSON object, encrypted like the key (src/hosting/keys). */
    sealedHeaders: text("sealed_headers"),
    /** The names of those headers, as a JSON array: what the API shows of them. */
    headerNamesJson: text("header_names_json"),
    /** The API key, encrypted with the team's data key (src/hosting/keys); never plain text. */
    encryptedKey: text("encrypted_key").notNull(),
    keyLastFour: text("key_last_four").notNull(),
    /** For a personal credential sealed to its owner: the id of the personal key its secrets are under; null: the team's data key. */
    personalKeyId: text("personal_key_id"),
    /** When the provider last refused this key (401/403) since it was last written (docs/providers.md#keys-behind-one-model); null: not seen broken. */
    brokenAtMs: integer("broken_at_ms"),
    /** What the provider said then: its status and byok-edge's kind, never its text. */
    brokenReason: text("broken_reason"),
    createdAtMs: integer("created_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    deletedAtMs: integer("deleted_at_ms"),
  },
  (t) => [index("credentials_by_team").on(t.teamId, t.ownerUserId).where(sql`deleted_at_ms IS NULL`)],
);

export const models = sqliteTable(
  "models",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    ownerUserId: text("owner_user_id").references(() => users.id),
    scope: text("scope").$type<Scope>().notNull(),
    /** What Cursor shows; unique within what one user sees (own + team). */
    name: text("name").notNull(),
    credentialId: text("credential_id")
      .notNull()
      .references(() => credentials.id),
    /** The provider's own model id. */
    model: text("model").notNull(),
    contextWindow: integer("context_window"),
    maxOutputTokens: integer("max_output_tokens"),
    reasoningEffort: text("reasoning_effort"),
    /** As on credentials: plain only in rows written before header values were sealed. */
    headersJson: text("headers_json"),
    sealedHeaders: text("sealed_headers"),
    headerNamesJson: text("header_names_json"),
    extraBodyJson: text("extra_body_json"),
    fastServiceTier: text("fast_service_tier"),
    stallTimeoutMs: integer("stall_timeout_ms"),
    /** A JSON array of model ids to move on to, in order, when a call fails (docs/providers.md#fallbacks); null: none. */
    fallbacksJson: text("fallbacks_json"),
    /** More credentials of the same provider kind behind it, as a JSON array of {credential_id, weight} (docs/providers.md#keys-behind-one-model); null: its own only. */
    keysJson: text("keys_json"),
    /** The models that write its summaries and run its subagents (docs/providers.md#roles); null: itself. */
    compactionModelId: text("compaction_model_id"),
    subagentModelId: text("subagent_model_id"),
    /** For a model without vision: the model that describes its images (docs/providers.md#images-for-text-only-models). */
    imageModelId: text("image_model_id"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** False when the model cannot take images (as `vision` in BYOK_MODELS). */
    vision: integer("vision", { mode: "boolean" }).notNull().default(true),
    /** True: offered Codex's exec and wait tools (as `code_mode` in BYOK_MODELS). */
    codeMode: integer("code_mode", { mode: "boolean" }).notNull().default(false),
    /** Prices in USD per million tokens, for cost_usd in the usage ledger; null: unknown. */
    priceInputPerMtok: real("price_input_per_mtok"),
    priceOutputPerMtok: real("price_output_per_mtok"),
    priceCacheReadPerMtok: real("price_cache_read_per_mtok"),
    priceCacheWritePerMtok: real("price_cache_write_per_mtok"),
    createdAtMs: integer("created_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    deletedAtMs: integer("deleted_at_ms"),
  },
  (t) => [
    index("models_by_team").on(t.teamId, t.ownerUserId).where(sql`deleted_at_ms IS NULL`),
    index("models_by_credential").on(t.credentialId),
  ],
);
