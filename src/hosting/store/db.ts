// The D1 database through drizzle, with every table's schema, and the few helpers
// its queries share: new ids and telling a uniqueness conflict from other failures.
import { drizzle } from "drizzle-orm/d1";
import { toHex } from "../../core/bytes.ts";
import * as accounts from "./schema/accounts.ts";
import * as auditLog from "./schema/audit.ts";
import * as providers from "./schema/providers.ts";
import * as signOn from "./schema/sign-on.ts";
import * as usage from "./schema/usage.ts";

const schema = { ...accounts, ...auditLog, ...providers, ...signOn, ...usage };

export type D1Db = ReturnType<typeof d1>;

export function d1(db: D1Database) {
  return drizzle(db, { schema });
}

/** `<prefix>_<24 hex>`: 96 random bits, so ids neither collide nor can be guessed. */
export function newId(prefix: "team" | "usr" | "tok" | "ses" | "cred" | "mdl" | "aud"): string {
  return `${prefix}_${toHex(crypto.getRandomValues(new Uint8Array(12)))}`;
}

/** SQLite's UNIQUE constraint failure, however drizzle and D1 wrap it. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e.message.includes("UNIQUE constraint failed")) return true;
  }
  return false;
}
