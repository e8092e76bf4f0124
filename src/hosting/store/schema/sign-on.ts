// D1 tables of single sign-on (docs/hosting.md#single-sign-on): which team an email domain
// belongs to, the sign-ins in flight (one row per OIDC redirect, used once), and the tokens
// waiting for the connector that asked for them (one row per browser login, used once).
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { teams, tokens, users } from "./accounts.ts";

/** An email domain whose verified people sign in to its team; a domain belongs to one team at most. */
export const ssoDomains = sqliteTable(
  "sso_domains",
  {
    /** Lower-cased, e.g. `acme.com`. */
    domain: text("domain").primaryKey(),
    teamId: text("team_id")
      .notNull()
      .references(() => teams.id),
  },
  (t) => [index("sso_domains_by_team").on(t.teamId)],
);

/** An OIDC authorization request on its way through the identity provider. */
export const ssoAttempts = sqliteTable("sso_attempts", {
  /** SHA-256 of its `state`, hex: the state itself travels only through the browser. */
  stateHash: text("state_hash").primaryKey(),
  nonce: text("nonce").notNull(),
  /** The PKCE verifier, which never leaves the deployment. */
  codeVerifier: text("code_verifier").notNull(),
  /** The dashboard path to land on after sign-in. */
  returnTo: text("return_to").notNull(),
  createdAtMs: integer("created_at_ms").notNull(),
});

/** A token issued to a connector's browser login, until the connector exchanges the code for it. */
export const connectorGrants = sqliteTable("connector_grants", {
  /** SHA-256 of the code handed to the connector's loopback redirect, hex. */
  codeHash: text("code_hash").primaryKey(),
  userId: text("user_id")
    .notNull()
    .references(() => users.id),
  tokenId: text("token_id")
    .notNull()
    .references(() => tokens.id),
  /** The token, sealed under a key derived from the code (src/hosting/sso/connector-login.ts). */
  sealedToken: text("sealed_token").notNull(),
  /** PKCE S256 challenge the connector sent. */
  codeChallenge: text("code_challenge").notNull(),
  redirectUri: text("redirect_uri").notNull(),
  /**
   * When the token stops working once the connector has it (null: never). Until then it expires
   * with the grant, so a login nobody finishes leaves no live token behind.
   */
  tokenExpiresAtMs: integer("token_expires_at_ms"),
  createdAtMs: integer("created_at_ms").notNull(),
});
