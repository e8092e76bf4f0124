// A request through Cloudflare Access, signed in as its person (docs/hosting.md#cloudflare-access).
// Access sends its assertion on every request and opens no session here, so who an email is
// stays cached per isolate for 5 s (a removed user is refused within 5 s, as their tokens are),
// and a sign-in is recorded once per assertion this isolate sees, not once per request.
import { sha256Hex } from "../../core/bytes.ts";
import { AppError, Code } from "../../core/errors.ts";
import { d1 } from "../store/db.ts";
import type { UserRow } from "../store/user-rows.ts";
import { verifyAccessAssertion } from "./access.ts";
import { recordSignIn, recordSignInFailure, signInRequest, userForEmail } from "./sign-in.ts";
import type { AccessConfig } from "./sso-config.ts";

const TTL_MS = 5_000;
const MAX_PEOPLE = 10_000;
const MAX_SEEN = 20_000;

const people = new Map<string, { user: UserRow; untilMs: number }>();
/** Assertions (by hash) whose sign-in or failure this isolate has recorded. */
const seen = new Set<string>();

/** The user an Access assertion signs in, or unauthenticated / permission_denied saying why. */
export async function accessUser(config: AccessConfig, assertion: string, request: Request, database: D1Database): Promise<UserRow> {
  const db = d1(database);
  const from = signInRequest(request, "access");
  const key = await sha256Hex(assertion);
  const firstSight = !seen.has(key);
  if (firstSight) remember(key);
  const now = Date.now();
  let email: string;
  try {
    ({ email } = await verifyAccessAssertion(config, assertion));
  } catch (err) {
    if (firstSight && err instanceof AppError && err.code !== Code.Unavailable) await recordSignInFailure(db, from, now, err.message);
    throw err;
  }
  const cached = people.get(email);
  if (cached && now < cached.untilMs) return cached.user;
  const user = await userForEmail(db, email, true, from, now);
  if (firstSight) await recordSignIn(db, from, now, user);
  people.delete(email);
  people.set(email, { user, untilMs: now + TTL_MS });
  if (people.size > MAX_PEOPLE) people.delete(people.keys().next().value ?? "");
  return user;
}

/** This isolate forgets who an email is at once (a removal here; other isolates within 5 s). */
export function forgetAccessUser(userId: string): void {
  for (const [email, entry] of people) if (entry.user.id === userId) people.delete(email);
}

function remember(key: string): void {
  seen.add(key);
  if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value ?? "");
}
