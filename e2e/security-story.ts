// The hosted security story (docs/hosting.md, docs/keys-at-rest.md), run once across two teams
// on the same `wrangler dev`, through the admin API and real Cursor turns on the fake provider:
//
//  1. the operator makes teams A and B, each with an admin (its token issued by the operator) who
//     adds a member and issues the member's token: a token "issued by someone else";
//  2. the audit log is per team: A's admin sees the member's `token.issue` with
//     `details.for_other: true` and nothing of B, B's admin nothing of A, A's admin may not name
//     B's team (404), and the member's own token list names who issued the token (`issued_by`);
//  3. header values are sealed: A's team credential carries `helicone-auth` and its model
//     `cf-aig-authorization`; A's member reads only their names, and a turn's provider request
//     carries both values (and the key);
//  4. a team's budget ends runs: the operator gives B a budget of two turns' worth; B's member
//     runs until it is used, the next run ends with resource_exhausted before its provider call is
//     answered or counted (the budget and the runs API say so), and A's member still runs;
//  5. guessed tokens are refused before work: a burst of well-formed random `byok_` tokens from one
//     address is answered 401 until the address passes AUTH_ATTEMPTS (1,000 a minute), then 429
//     resource_exhausted; A's member's token, seen valid there before, still runs a turn from it,
//     while a token not yet seen there is refused from it and works from another address;
//  6. data keys rotate under live credentials: after the operator's rotate-data-keys, A's turn
//     still reaches the provider with its key and both header values, and the log holds `keys.rotate`;
//  7. personal keys are sealed to their owner: A's member stores a personal key with a token they
//     issued themselves; the token their admin issued runs team models but is refused the personal
//     one (failed_precondition) until the member unlocks it, which the admin may not do;
//  8. no audit entry the operator can read holds any token, key or header value the story used.
import { randomBytes } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { toHex } from "../src/core/bytes.ts";
import { callApi } from "./support/admin-api.ts";
import { until } from "./support/until.ts";

const CALL_TIMEOUT_MS = 15_000;
/** What each create here must answer (docs/hosting.md#admin-api). */
const CREATED = 201;
/** The tokens each of main.ts checkTurn's turns counts: the fake provider reports 21 prompt + 5 completion tokens. */
const TOKENS_PER_TURN = 26;
/**
 * Team B's budget: two turns' worth, less than both. A call is admitted while any of the budget is
 * left (it reserves only what is left) and counts what the provider reports, so the first turn counts
 * 26, the second is admitted on the 14 left and counts 52 of 40, and the third is refused
 * (src/hosting/limits/team-month.ts `reserve`).
 */
const BUDGET = 40;
const TURNS_WITHIN_BUDGET = 2;
/** AUTH_ATTEMPTS (wrangler.toml `ratelimits`, src/hosting/auth/auth-attempts.ts): per address, a minute. */
const ATTEMPTS_PER_MINUTE = 1000;
/**
 * The binding counts in windows aligned to the clock's minutes, so a burst that crosses a window's
 * edge may pass up to twice the limit before it is refused; more than that is a failure.
 */
const MAX_GUESSES = 2 * ATTEMPTS_PER_MINUTE + 100;
const GUESSES_IN_FLIGHT = 8;
const BURST_TIMEOUT_MS = 180_000;
/** Guesses sent after the refusal, each expected to be refused at once. */
const GUESSES_AFTER_REFUSAL = 20;
const MAX_AUDIT_PAGES = 100;

/** What one turn must also show beyond main.ts checkTurn's own assertions. */
export interface TurnExtras {
  /** Headers the provider's request must carry, with exactly these values (the stored, sealed ones). */
  upstreamHeaders?: Record<string, string>;
  /** The client address (CF-Connecting-IP) every call of the turn comes from; default: the connection's. */
  clientAddress?: string;
}

/** Runs one turn as `token` on `model`, asserting the provider got `apiKey` (e2e/main.ts checkTurn) and `extras`. */
export type StoryTurn = (token: string, model: string, apiKey: string, extras?: TurnExtras) => Promise<string>;

export interface SecurityStoryOptions {
  baseUrl: string;
  adminToken: string;
  providerBase: string;
  upstreamModel: string;
  turn: StoryTurn;
}

interface Person {
  id: string;
  email: string;
  token: string;
  tokenId: string;
}

interface StoryTeam {
  label: string;
  id: string;
  name: string;
  admin: Person;
  member: Person;
  apiKey: string;
  credentialId: string;
  modelId: string;
}

interface AuditEntry {
  id: string;
  action: string;
  actor: { kind: string; id: string; email: string | null };
  target: { kind: string; id: string; name?: string };
  team_id: string | null;
  outcome: string;
  details: Record<string, unknown>;
}

interface Budget {
  monthly_token_budget: number | null;
  used_tokens: number;
  reserved_tokens: number;
  remaining_tokens: number | null;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** Runs one step of the story; its failure names the step. */
async function step(name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    throw new Error(`${name}: ${message}`);
  }
  console.log(`      ok: ${name}`);
}

/** An admin-API call that resolves with whatever it was answered (callApi throws outside 2xx); `address` sets CF-Connecting-IP. */
async function rawCall(
  baseUrl: string,
  token: string,
  path: string,
  address?: string,
): Promise<{ status: number; body: string; retryAfter: string | null }> {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    headers: { authorization: `Bearer ${token}`, ...(address !== undefined && { "cf-connecting-ip": address }) },
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  return { status: res.status, body: await res.text(), retryAfter: res.headers.get("retry-after") };
}

/** A POST that resolves with whatever it was answered (callApi throws outside 2xx). */
async function rawPost(baseUrl: string, token: string, path: string, body: unknown): Promise<{ status: number; body: string }> {
  const res = await fetch(`${baseUrl}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  return { status: res.status, body: await res.text() };
}

function errorCode(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

/** A well-formed user token nobody was issued: `byok_` + 32 random bytes in base64url (src/hosting/auth/user-token.ts). */
function guessedToken(): string {
  return `byok_${randomBytes(32).toString("base64url")}`;
}

/** A TEST-NET-2 address (RFC 5737) of this run's own: no other call of the e2e run comes from it. */
function testAddress(): string {
  return `198.51.100.${1 + (randomBytes(1)[0]! % 254)}`;
}

export async function checkSecurityStory(opts: SecurityStoryOptions): Promise<void> {
  const { baseUrl, adminToken, providerBase, upstreamModel, turn } = opts;
  const operator = <T>(method: string, path: string, body?: unknown, status?: number) =>
    callApi<T>(baseUrl, adminToken, method, path, body, status);
  const as = <T>(who: Person, method: string, path: string, body?: unknown, status?: number) =>
    callApi<T>(baseUrl, who.token, method, path, body, status);
  /** Every token, key and header value the story used: no audit entry may hold one (step 7). */
  const secrets = new Set<string>([adminToken]);
  const suffix = toHex(randomBytes(3));

  // 1. Teams, admins, members; each member's token issued by their admin.
  const teams: StoryTeam[] = [];
  await step("the operator makes teams A and B, each with an admin who adds a member and issues the member's token", async () => {
    for (const label of ["A", "B"]) {
      const name = `Story ${label} ${suffix}`;
      const team = await operator<{ id: string }>("POST", "/teams", { name }, CREATED);
      const adminEmail = `admin-${label.toLowerCase()}@story.example.com`;
      const adminUser = await operator<{ id: string }>("POST", `/teams/${team.id}/users`, { email: adminEmail, role: "admin" }, CREATED);
      const adminIssued = await operator<{ id: string; token: string }>(
        "POST",
        `/users/${adminUser.id}/tokens`,
        { name: "admin laptop" },
        CREATED,
      );
      const admin: Person = { id: adminUser.id, email: adminEmail, token: adminIssued.token, tokenId: adminIssued.id };
      const memberEmail = `member-${label.toLowerCase()}@story.example.com`;
      const memberUser = await as<{ id: string }>(
        admin,
        "POST",
        `/teams/${team.id}/users`,
        { email: memberEmail, role: "member" },
        CREATED,
      );
      const memberIssued = await as<{ id: string; token: string }>(
        admin,
        "POST",
        `/users/${memberUser.id}/tokens`,
        { name: "issued by admin" },
        CREATED,
      );
      const member: Person = { id: memberUser.id, email: memberEmail, token: memberIssued.token, tokenId: memberIssued.id };
      secrets.add(admin.token).add(member.token);
      teams.push({ label, id: team.id, name, admin, member, apiKey: "", credentialId: "", modelId: "" });
    }
  });
  const [teamA, teamB] = teams as [StoryTeam, StoryTeam];

  // 2. The audit log, per team; who issued a token.
  await step("each admin's audit log shows its own team's entries only, the member's token.issue marked for_other", async () => {
    const idsOf = (t: StoryTeam) => [t.id, t.admin.id, t.member.id, t.admin.tokenId, t.member.tokenId];
    for (const [own, other] of [
      [teamA, teamB],
      [teamB, teamA],
    ] as const) {
      const { entries } = await as<{ entries: AuditEntry[] }>(own.admin, "GET", "/audit?limit=200");
      assert(entries.length > 0, `team ${own.label}'s admin sees no audit entries`);
      const foreign = entries.filter((e) => e.team_id !== own.id);
      assert(
        foreign.length === 0,
        `team ${own.label}'s admin sees entries of other teams: ${foreign.map((e) => `${e.action} (${e.team_id})`).join(", ")}`,
      );
      const text = JSON.stringify(entries);
      const leaked = [...idsOf(other), other.name].filter((id) => text.includes(id));
      assert(leaked.length === 0, `team ${own.label}'s admin's audit log names team ${other.label}'s ${leaked.join(", ")}`);
      const issue = entries.find((e) => e.action === "token.issue" && e.target.id === own.member.tokenId);
      assert(issue, `team ${own.label}'s admin sees no token.issue for the member's token; saw ${entries.map((e) => e.action).join(", ")}`);
      assert(issue.details.for_other === true, `the member's token.issue has for_other ${String(issue.details.for_other)}`);
      assert(issue.details.user_id === own.member.id, `the member's token.issue names user ${String(issue.details.user_id)}`);
      assert(
        issue.actor.kind === "user" && issue.actor.id === own.admin.id && issue.outcome === "ok",
        `the member's token.issue was by ${JSON.stringify(issue.actor)}, outcome ${issue.outcome}`,
      );
    }
    // Naming the other team's id is outside an admin's reach: 404, not an empty page.
    const across = await rawCall(baseUrl, teamA.admin.token, `/audit?team_id=${teamB.id}`);
    assert(
      across.status === 404 && errorCode(across.body) === "not_found",
      `A's admin asking for B's audit got ${across.status} ${across.body}`,
    );
    // The member sees the entry about their own token too, and nothing of team B.
    const memberView = await as<{ entries: AuditEntry[] }>(teamA.member, "GET", "/audit?limit=200");
    assert(
      memberView.entries.some((e) => e.action === "token.issue" && e.target.id === teamA.member.tokenId),
      "A's member does not see the token.issue of their own token",
    );
    assert(
      memberView.entries.every((e) => e.team_id === teamA.id),
      "A's member sees audit entries of another team",
    );
  });

  await step("the member's own token list names the admin who issued the token, the admin's the operator", async () => {
    type Listed = { id: string; issued_by: { kind: string; id: string; email: string | null } | null };
    const { tokens } = await as<{ tokens: Listed[] }>(teamA.member, "GET", `/users/${teamA.member.id}/tokens`);
    const memberToken = tokens.find((t) => t.id === teamA.member.tokenId);
    assert(memberToken, `the member's token list lacks ${teamA.member.tokenId}`);
    const by = memberToken.issued_by;
    assert(
      by?.kind === "user" && by.id === teamA.admin.id && by.email === teamA.admin.email,
      `the member's token has issued_by ${JSON.stringify(by)}, expected A's admin`,
    );
    const own = await as<{ tokens: Listed[] }>(teamA.admin, "GET", `/users/${teamA.admin.id}/tokens`);
    const adminListed = own.tokens.find((t) => t.id === teamA.admin.tokenId);
    assert(adminListed?.issued_by?.kind === "operator", `the admin's token has issued_by ${JSON.stringify(adminListed?.issued_by)}`);
    // B's member does not reach A's member's tokens: 404.
    const across = await rawCall(baseUrl, teamB.member.token, `/users/${teamA.member.id}/tokens`);
    assert(across.status === 404, `B's member listing A's member's tokens got ${across.status}`);
  });

  // 3. Sealed header values: A's team credential and model carry custom headers; members read names only.
  const credentialHeader = { "helicone-auth": `Bearer sk-helicone-${toHex(randomBytes(12))}` };
  const modelHeader = { "cf-aig-authorization": `Bearer cfaig-${toHex(randomBytes(12))}` };
  const storyModel = `story-model-${suffix}`;
  for (const value of [...Object.values(credentialHeader), ...Object.values(modelHeader)]) {
    secrets.add(value).add(value.replace(/^Bearer /, ""));
  }
  await step(
    "A's admin stores a team credential with a helicone-auth header and a model on it with cf-aig-authorization; B's admin a plain pair of the same names",
    async () => {
      for (const team of teams) {
        team.apiKey = `sk-story-${team.label.toLowerCase()}-${toHex(randomBytes(12))}`;
        secrets.add(team.apiKey);
        const credential = await as<{ id: string }>(
          team.admin,
          "POST",
          "/credentials",
          {
            name: `Story ${team.label} key`,
            provider: "openai-chat",
            base_url: `${providerBase}/v1`,
            api_key: team.apiKey,
            scope: "team",
            ...(team === teamA && { headers: credentialHeader }),
          },
          CREATED,
        );
        const model = await as<{ id: string }>(
          team.admin,
          "POST",
          "/models",
          {
            name: storyModel,
            credential_id: credential.id,
            model: upstreamModel,
            scope: "team",
            context_window: 131_072,
            ...(team === teamA && { headers: modelHeader }),
          },
          CREATED,
        );
        team.credentialId = credential.id;
        team.modelId = model.id;
      }
    },
  );
  const sealedHeaders = { ...credentialHeader, ...modelHeader };

  await step(
    "A's member reads the header names of the team's credential and model, never their values; B's member sees neither",
    async () => {
      const credentials = await as<{ credentials: Record<string, unknown>[] }>(teamA.member, "GET", "/credentials");
      const credential = credentials.credentials.find((c) => c.id === teamA.credentialId);
      assert(credential, "A's member does not see the team credential");
      assert(
        JSON.stringify(credential.header_names) === JSON.stringify(Object.keys(credentialHeader)),
        `the credential's header_names are ${JSON.stringify(credential.header_names)}`,
      );
      assert(!("headers" in credential), "the credential answer has a headers field");
      assert(credential.key_last_four === teamA.apiKey.slice(-4), "the credential's key_last_four is not the key's last four");
      const models = await as<{ models: Record<string, unknown>[] }>(teamA.member, "GET", "/models");
      const model = models.models.find((m) => m.id === teamA.modelId);
      assert(model, "A's member does not see the team model");
      assert(
        JSON.stringify(model.header_names) === JSON.stringify(Object.keys(modelHeader)),
        `the model's header_names are ${JSON.stringify(model.header_names)}`,
      );
      assert(!("headers" in model), "the model answer has a headers field");
      const text = JSON.stringify([credentials, models]);
      const shown = [...secrets].filter((s) => text.includes(s));
      assert(shown.length === 0, `GET /credentials or /models showed ${shown.length} secret value(s) (not echoed here)`);
      // B's member sees B's pair only, never A's.
      const other = JSON.stringify([await as(teamB.member, "GET", "/credentials"), await as(teamB.member, "GET", "/models")]);
      assert(other.includes(teamB.credentialId) && other.includes(teamB.modelId), "B's member does not see B's credential and model");
      assert(!other.includes(teamA.credentialId) && !other.includes(teamA.modelId), "B's member sees A's credential or model");
    },
  );

  await step("a turn of A's member on the team model reaches the provider with the key and both header values", async () => {
    await turn(teamA.member.token, storyModel, teamA.apiKey, { upstreamHeaders: sealedHeaders });
  });

  // 4. Budgets: B's is used up by its own turns; A is not limited by it.
  await step(
    `with a ${BUDGET}-token budget, B's member runs ${TURNS_WITHIN_BUDGET} turns and the next ends with resource_exhausted`,
    async () => {
      const patched = await operator<{ monthly_token_budget: number | null }>("PATCH", `/teams/${teamB.id}`, {
        monthly_token_budget: BUDGET,
      });
      assert(patched.monthly_token_budget === BUDGET, `the patched team has budget ${patched.monthly_token_budget}`);
      let budget: Budget | undefined;
      /** Waits until no call holds a reservation and `used` tokens are counted: the turn's call settles after its stream ends. */
      const settled = (used: number) =>
        until(
          () => `team B's budget to show ${used} used tokens and none reserved; it showed ${JSON.stringify(budget)}`,
          CALL_TIMEOUT_MS,
          async () => {
            budget = await as<Budget>(teamB.member, "GET", `/teams/${teamB.id}/budget`);
            return budget.reserved_tokens === 0 && budget.used_tokens === used ? budget : undefined;
          },
        );
      let used = 0;
      let turns = 0;
      for (let left = await settled(used); left.remaining_tokens !== 0; turns++) {
        assert(turns < TURNS_WITHIN_BUDGET, `the budget still had ${left.remaining_tokens} tokens after ${turns} turns`);
        await turn(teamB.member.token, storyModel, teamB.apiKey);
        used += TOKENS_PER_TURN;
        left = await settled(used);
      }
      assert(turns === TURNS_WITHIN_BUDGET, `the budget was used up after ${turns} turns, expected ${TURNS_WITHIN_BUDGET}`);
      assert(budget?.monthly_token_budget === BUDGET, `the budget reads ${budget?.monthly_token_budget}`);
      let refusal: ConnectError | undefined;
      try {
        await turn(teamB.member.token, storyModel, teamB.apiKey);
      } catch (error) {
        refusal = ConnectError.from(error);
      }
      assert(refusal, "a turn past team B's budget succeeded");
      assert(
        refusal.code === Code.ResourceExhausted && refusal.rawMessage === `team monthly token budget of ${BUDGET} tokens is used up`,
        `the turn past the budget ended with ${Code[refusal.code]}: ${refusal.rawMessage}`,
      );
      // Refused before its provider call: nothing more counted, nothing left reserved.
      await settled(used);
      // The runs API (written after each run, so polled) shows it: the refused run failed with no
      // tokens, its one provider call never answered (no HTTP status); the runs before it completed.
      type Run = { status: string; input_tokens: number; output_tokens: number; provider_calls: { http_status: number | null }[] };
      let runs: Run[] = [];
      await until(
        () => `${TURNS_WITHIN_BUDGET + 1} runs of B's member in the runs API, which showed ${JSON.stringify(runs)}`,
        CALL_TIMEOUT_MS,
        async () => {
          runs = (await as<{ runs: Run[] }>(teamB.admin, "GET", `/runs?user_id=${teamB.member.id}`)).runs;
          return runs.length >= TURNS_WITHIN_BUDGET + 1 ? true : undefined;
        },
      );
      const [refused, ...earlier] = runs;
      assert(
        runs.length === TURNS_WITHIN_BUDGET + 1 &&
          refused?.status === "failed" &&
          refused.input_tokens + refused.output_tokens === 0 &&
          refused.provider_calls.every((call) => call.http_status === null),
        `the refused run is recorded as ${JSON.stringify(refused)}`,
      );
      assert(
        earlier.every(
          (run) =>
            run.status === "completed" && run.input_tokens + run.output_tokens === TOKENS_PER_TURN && run.provider_calls.length === 1,
        ),
        `the runs within the budget are recorded as ${JSON.stringify(earlier)}`,
      );
    },
  );

  await step("A's member still runs a turn while B's budget is used up", async () => {
    await turn(teamA.member.token, storyModel, teamA.apiKey, { upstreamHeaders: sealedHeaders });
  });

  // 5. Rate limit before work, per client address.
  await step(
    "a burst of guessed byok_ tokens from one address gets 429 resource_exhausted; A's member's token still runs there",
    async () => {
      const address = testAddress();
      // Seen valid from the address before the burst: it passes the attempt limit there afterwards.
      const before = await rawCall(baseUrl, teamA.member.token, "/me", address);
      assert(before.status === 200, `A's member's /me from ${address} got ${before.status}: ${before.body}`);

      let sent = 0;
      let unauthenticated = 0;
      let refusal: { status: number; body: string; retryAfter: string | null } | undefined;
      const deadline = Date.now() + BURST_TIMEOUT_MS;
      const guesser = async () => {
        while (refusal === undefined && sent < MAX_GUESSES && Date.now() < deadline) {
          sent++;
          const guess = guessedToken();
          secrets.add(guess);
          const answer = await rawCall(baseUrl, guess, "/me", address);
          if (answer.status === 401) unauthenticated++;
          else if (answer.status === 429) refusal ??= answer;
          else throw new Error(`a guessed token got HTTP ${answer.status}: ${answer.body}`);
        }
      };
      await Promise.all(Array.from({ length: GUESSES_IN_FLIGHT }, guesser));
      assert(refusal, `${sent} guessed tokens from one address were never refused (${unauthenticated} answered 401)`);
      console.log(`      ${unauthenticated} guessed tokens answered 401, then 429 (${sent} sent)`);
      // The member's own call counted once; the binding admits up to its limit per window (twice across a window's edge).
      assert(
        unauthenticated >= ATTEMPTS_PER_MINUTE - 1 && unauthenticated <= 2 * ATTEMPTS_PER_MINUTE,
        `${unauthenticated} guesses were checked before the refusal; AUTH_ATTEMPTS allows ${ATTEMPTS_PER_MINUTE} a minute`,
      );
      assert(errorCode(refusal.body) === "resource_exhausted", `the refusal was ${refusal.body}`);
      assert(
        refusal.body.includes(`too many failed authentications from this address (over ${ATTEMPTS_PER_MINUTE} a minute)`),
        `the refusal's message: ${refusal.body}`,
      );
      assert(refusal.retryAfter !== null && Number(refusal.retryAfter) > 0, `the refusal's Retry-After was ${refusal.retryAfter}`);
      for (let i = 0; i < GUESSES_AFTER_REFUSAL; i++) {
        const guess = guessedToken();
        secrets.add(guess);
        const again = await rawCall(baseUrl, guess, "/me", address);
        assert(again.status === 429, `a guess after the refusal got ${again.status}`);
      }

      const after = await rawCall(baseUrl, teamA.member.token, "/me", address);
      assert(after.status === 200, `A's member's /me from ${address} after the burst got ${after.status}: ${after.body}`);
      const me = JSON.parse(after.body) as { user: { id: string } | null };
      assert(me.user?.id === teamA.member.id, `A's member's /me answered user ${me.user?.id}`);
      await turn(teamA.member.token, storyModel, teamA.apiKey, { upstreamHeaders: sealedHeaders, clientAddress: address });

      // A valid token not yet seen from the blocked address is refused there, and works from any other.
      const fresh = await as<{ id: string; token: string }>(
        teamA.admin,
        "POST",
        `/users/${teamA.member.id}/tokens`,
        { name: "fresh" },
        CREATED,
      );
      secrets.add(fresh.token);
      const blocked = await rawCall(baseUrl, fresh.token, "/me", address);
      assert(blocked.status === 429, `a valid token first used from the blocked address got ${blocked.status}`);
      const elsewhere = await rawCall(baseUrl, fresh.token, "/me");
      assert(elsewhere.status === 200, `the same token from another address got ${elsewhere.status}: ${elsewhere.body}`);
    },
  );

  // 6. Data-key rotation under live credentials.
  await step("after the operator rotates every data key, A's turn still works and the audit log holds keys.rotate", async () => {
    type Rotation = { teams: number; rotated: number; credential_keys: number; header_sets: number; failed: number; failures: unknown[] };
    const rotation = await operator<Rotation>("POST", "/admin/rotate-data-keys");
    assert(rotation.failed === 0, `the rotation failed for ${JSON.stringify(rotation.failures)}`);
    // At least A and B, with a key each and A's two header sets; other checks' teams are rotated too.
    assert(
      rotation.teams >= 2 && rotation.rotated === rotation.teams && rotation.credential_keys >= 2 && rotation.header_sets >= 2,
      `the rotation answered ${JSON.stringify(rotation)}`,
    );
    await turn(teamA.member.token, storyModel, teamA.apiKey, { upstreamHeaders: sealedHeaders });
    const { entries } = await operator<{ entries: AuditEntry[] }>("GET", "/audit?action=keys.rotate&limit=1");
    const entry = entries[0];
    assert(entry, "the audit log holds no keys.rotate entry");
    assert(
      entry.actor.kind === "operator" && entry.outcome === "ok" && entry.details.rotated === rotation.rotated,
      `the keys.rotate entry is ${JSON.stringify(entry)}`,
    );
  });

  // 7. Personal keys sealed to their owner (docs/keys-at-rest.md#personal-keys).
  await step(
    "a member's personal key opens only with their own tokens: the admin-issued one is refused until the member unlocks it",
    async () => {
      const memberA = teamA.member;
      // The member issues a token of their own, and stores a personal key with it: that token holds the new personal key.
      const ownIssued = await as<{ id: string; token: string }>(memberA, "POST", `/users/${memberA.id}/tokens`, { name: "mine" }, CREATED);
      const own: Person = { ...memberA, token: ownIssued.token, tokenId: ownIssued.id };
      secrets.add(own.token);
      const personalKey = `sk-personal-${toHex(randomBytes(12))}`;
      secrets.add(personalKey);
      const credential = await as<{ id: string; sealed_to_owner: boolean }>(
        own,
        "POST",
        "/credentials",
        { name: "mine", provider: "openai-chat", base_url: `${providerBase}/v1`, api_key: personalKey, scope: "user" },
        CREATED,
      );
      assert(credential.sealed_to_owner, `the personal credential reads ${JSON.stringify(credential)}`);
      await as(
        own,
        "POST",
        "/models",
        { name: "personal-model", credential_id: credential.id, model: upstreamModel, scope: "user" },
        CREATED,
      );
      await turn(own.token, "personal-model", personalKey);

      // The token the admin issued still runs team models, but not the personal one.
      await turn(memberA.token, storyModel, teamA.apiKey);
      let sealed: ConnectError | undefined;
      try {
        await turn(memberA.token, "personal-model", personalKey);
      } catch (error) {
        sealed = ConnectError.from(error);
      }
      assert(
        sealed?.code === Code.FailedPrecondition && sealed.rawMessage.includes("sealed to your own tokens"),
        `a turn on the personal model with the admin-issued token ended with ${sealed ? `${Code[sealed.code]}: ${sealed.rawMessage}` : "success"}`,
      );
      // The admin cannot unlock it for the member; the member can, from their own token.
      const byAdmin = await rawPost(baseUrl, teamA.admin.token, `/tokens/${memberA.tokenId}/unlock`, { token: memberA.token });
      assert(byAdmin.status === 403, `the admin's unlock answered ${byAdmin.status}`);
      const unlocked = await as<{ holds_personal_key: boolean }>(own, "POST", `/tokens/${memberA.tokenId}/unlock`, {
        token: memberA.token,
      });
      assert(unlocked.holds_personal_key, `the unlock answered ${JSON.stringify(unlocked)}`);
      await turn(memberA.token, "personal-model", personalKey);
      const { entries } = await as<{ entries: AuditEntry[] }>(teamA.admin, "GET", "/audit?action=token.unlock");
      assert(
        entries.some((e) => e.outcome === "ok" && e.target.id === memberA.tokenId) &&
          entries.some((e) => e.outcome === "denied" && e.actor.id === teamA.admin.id),
        `the token.unlock entries are ${JSON.stringify(entries)}`,
      );
    },
  );

  // 8. No secret in any entry the operator can read: the whole log, page by page.
  await step("no audit entry holds a token, key or header value the story used", async () => {
    const texts: string[] = [];
    const actions = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; ; page++) {
      assert(page < MAX_AUDIT_PAGES, `the audit log has more than ${MAX_AUDIT_PAGES} pages`);
      const query: string = `/audit?limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
      const answer: { entries: AuditEntry[]; next_cursor: string | null } = await operator("GET", query);
      for (const entry of answer.entries) {
        texts.push(JSON.stringify(entry));
        if (entry.team_id === teamA.id || entry.team_id === teamB.id) actions.add(entry.action);
      }
      cursor = answer.next_cursor;
      if (cursor === null) break;
    }
    // The scan covered the story's own writes: each kind of them is in the log.
    const expected = ["team.create", "user.add", "token.issue", "credential.create", "model.create", "team.budget"];
    const missing = expected.filter((a) => !actions.has(a));
    assert(missing.length === 0, `the audit log lacks the story's ${missing.join(", ")}`);
    const haystack = texts.join("\n");
    const found = [...secrets].filter((s) => haystack.includes(s));
    assert(found.length === 0, `${found.length} of ${secrets.size} secrets appear in the audit log (not echoed here)`);
    console.log(`      ${texts.length} audit entries searched for ${secrets.size} secrets`);
  });
}
