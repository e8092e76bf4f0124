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

const people = new Map<string, ({ user: UserRow } | { refusal: AppError }) & { untilMs: number }>();
/** Assertions (by hash) whose sign-in or failure this isolate has recorded. */
const seen = new Set<string>();

/** The user an Access assertion signs in, or unauthenticated / permission_denied saying why. */
export async function accessUser(config: AccessConfig, assertion: string, request: Request, database: D1Database): Promise<UserRow> {
  const db = d1(database);
  const from = signInRequest(request, "access");
  const key = await sha256Hex(assertion);
  const now = Date.now();
  let email: string;
  try {
    ({ email } = await verifyAccessAssertion(config, assertion));
  } catch (err) {
    // Keys that could not be fetched say nothing of the assertion: it is recorded when it is decided.
    if (err instanceof AppError && err.code !== Code.Unavailable && !seen.has(key)) {
      remember(key);
      await recordSignInFailure(db, from, now, err.rawMessage);
    }
    throw err;
  }
  const cached = people.get(email);
  if (cached && now < cached.untilMs && "refusal" in cached) throw cached.refusal;
  let user: UserRow;
  try {
    user = cached && now < cached.untilMs && "user" in cached ? cached.user : await userForEmail(db, email, true, from, now);
  } catch (err) {
    // A refusal is decided (and recorded) once per 5 s, not on every request the browser makes meanwhile.
    if (err instanceof AppError && err.code === Code.PermissionDenied) people.set(email, { refusal: err, untilMs: now + TTL_MS });
    throw err;
  }
  if (!seen.has(key)) {
    remember(key);
    await recordSignIn(db, from, now, user);
  }
  people.delete(email);
  people.set(email, { user, untilMs: cached && now < cached.untilMs ? cached.untilMs : now + TTL_MS });
  if (people.size > MAX_PEOPLE) people.delete(people.keys().next().value ?? "");
  return user;
}

/** This isolate forgets who an email is at once (a removal here; other isolates within 5 s). */
export function forgetAccessUser(userId: string): void {
  for (const [email, entry] of people) if ("user" in entry && entry.user.id === userId) people.delete(email);
}

function remember(key: string): void {
  seen.add(key);
  if (seen.size > MAX_SEEN) seen.delete(seen.values().next().value ?? "");
}
