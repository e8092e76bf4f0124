// D1 tables of who may call: teams, their users, and the users' tokens
// (docs/hosting.md#principals). Rows are removed softly, so ids in logs and
// usage rows keep meaning something.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const teams = sqliteTable(
  "teams",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** Input + output tokens per calendar month (UTC); null: no budget. */
    monthlyTokenBudget: integer("monthly_token_budget"),
    /** CPU milliseconds each of its members' code-mode cells may use; null: the default (docs/hosting.md#limits). */
    codeModeCpuMs: integer("code_mode_cpu_ms"),
    /** The team's data key, wrapped by KEY_ENCRYPTION_KEY (src/hosting/keys); null until its first credential. */
    wrappedDataKey: text("wrapped_data_key"),
    /**
     * During a data-key rotation only: the key being replaced, so rows not yet re-encrypted still
     * open; null again when the rotation is done (docs/keys-at-rest.md#rotating-the-data-keys).
     */
    previousWrappedDataKey: text("previous_wrapped_data_key"),
    /** The role of a person single sign-on creates in this team (its domains: table sso_domains); null: member. */
    ssoDefaultRole: text("sso_default_role").$type<Role>(),
    /** The longest lifetime, in days, of any new token of its users; null: no cap (docs/hosting.md#tokens-of-ones-own). */
    maxTokenDays: integer("max_token_days"),
    /** The team's OTLP collector (docs/telemetry.md#traces): its base URL; null: none. */
    otlpEndpoint: text("otlp_endpoint"),
    /** Its headers as a JSON object sealed under the team's data key (src/hosting/keys), and their names in clear. */
    otlpSealedHeaders: text("otlp_sealed_headers"),
    otlpHeaderNamesJson: text("otlp_header_names_json"),
    createdAtMs: integer("created_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
  },
  (t) => [uniqueIndex("teams_name").on(t.name)],
);

export type Role = "admin" | "member";

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
    /** Stored lower-cased; unique among the team's users that are not removed. */
    email: text("email").notNull(),
    role: text("role").$type<Role>().notNull(),
    /** Runs started in any rolling 60 s; null: no limit. */
    requestsPerMinute: integer("requests_per_minute"),
    /** Runs in progress at once, subagents included; null: no limit. */
    maxConcurrentRuns: integer("max_concurrent_runs"),
    createdAtMs: integer("created_at_ms").notNull(),
    updatedAtMs: integer("updated_at_ms").notNull(),
    /** Set when the user is removed; their tokens stop working. */
    removedAtMs: integer("removed_at_ms"),
    /**
     * The public id of the user's personal key, which seals their personal credentials; the key
     * itself is stored only wrapped under their own tokens (docs/keys-at-rest.md#personal-keys).
     * Null: none yet, or lost with the last token that held it.
     */
    personalKeyId: text("personal_key_id"),
  },
  (t) => [uniqueIndex("users_team_email").on(t.teamId, t.email).where(sql`removed_at_ms IS NULL`), index("users_by_team").on(t.teamId)],
);

/** A bearer token (`token`) or a sign-in session (`session`, the dashboard's cookie; never listed with tokens). */
export type TokenKind = "token" | "session";

export const tokens = sqliteTable(
  "tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    kind: text("kind").$type<TokenKind>().notNull().default("token"),
    /** SHA-256 of the token, hex; the token itself is shown once and never stored. */
    tokenHash: text("token_hash").notNull(),
    createdAtMs: integer("created_at_ms").notNull(),
    expiresAtMs: integer("expires_at_ms"),
    /** Updated at most once a minute per token (src/hosting/auth/token-cache.ts). */
    lastUsedAtMs: integer("last_used_at_ms"),
    revokedAtMs: integer("revoked_at_ms"),
    /** Who issued it, when not its own user (the operator or an admin); null: the user did (docs/hosting.md#audit-log). */
    issuedByKind: text("issued_by_kind").$type<"operator" | "user" | "local" | "sso">(),
    issuedById: text("issued_by_id"),
    issuedByEmail: text("issued_by_email"),
    /** The user's personal key wrapped under a key derived from this token (salt and envelope); null: none (docs/keys-at-rest.md#personal-keys). */
    personalKeyWrap: text("personal_key_wrap"),
  },
  (t) => [uniqueIndex("tokens_hash").on(t.tokenHash), index("tokens_by_user").on(t.userId)],
);
