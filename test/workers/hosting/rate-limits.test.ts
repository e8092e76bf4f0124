// Rate limits before work (docs/hosting.md#rate-limits): failed authentications per client address,
// refused before any D1 query once past the limit, and every call per token. The limits are
// wrangler.toml's own (Cloudflare's Rate Limiting binding, which the test runtime runs locally).
// Each test calls from an address of its own, so the runner's other files (which send no
// CF-Connecting-IP) share nothing with it.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../../src/worker.ts";
import { newUserToken } from "../../../src/hosting/auth/user-token.ts";
import { LOCAL_TOKEN, teamWithPeople } from "../../support/admin-client.ts";
import { BASE, startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";

/** wrangler.toml: AUTH_ATTEMPTS, 1,000 a minute per address. */
const ATTEMPTS_PER_MINUTE = 1000;
/** vitest.config.ts: SMALL_TOKEN_CALLS, 40 a minute, in TOKEN_CALLS's place (1,000 in 10 s is out of a loaded runner's reach). */
const SMALL_CALLS_PER_MINUTE = 40;
/** The binding's windows are aligned to the clock: a run of calls may straddle two of them. */
const UNTIL_LIMITED_MAX = 3 * ATTEMPTS_PER_MINUTE;
const BATCH = 50;

/** The worker's D1 binding, counting every statement prepared and every batch or exec sent through it. */
function countingDb(db: D1Database): { db: D1Database; queries: () => number } {
  let queries = 0;
  const counted = new Set<PropertyKey>(["prepare", "batch", "exec", "withSession"]);
  const proxy = new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (counted.has(prop)) queries++;
        return value.apply(target, args);
      };
    },
  });
  return { db: proxy, queries: () => queries };
}

/** One call through the real worker with the counting D1 binding, waiting for its deferred work. */
async function call(path: string, token: string | null, address: string, db: D1Database, bindings: Partial<Env> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/proto",
        "cf-connecting-ip": address,
        ...(token !== null && { authorization: `Bearer ${token}` }),
      },
      body: new Uint8Array(0),
    }),
    { ...env, ...bindings, DB: db },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

/** A documentation address (RFC 5737 / 3849) no other test uses. */
function freshAddress(): string {
  return `2001:db8::${crypto.getRandomValues(new Uint16Array(1))[0]?.toString(16)}:${Date.now() % 0xffff}`;
}

const MODELS = "/agent.v1.AgentService/GetUsableModels";
/** An authenticated call that does nothing after authentication: no such Cursor method (501). */
const NOTHING = "/byok.test.v1.Nothing/Call";

describe("failed authentications per client address", () => {
  it("answers 401 until past the limit, then refuses 1,000 random tokens without a D1 query while tokens seen valid keep working", async () => {
    const { member } = await teamWithPeople();
    const address = freshAddress();
    const counter = countingDb(env.DB);
    // The people behind the address: a team user (admin API) and the single user (a turn), seen valid before the flood.
    expect((await call("/api/v1/me", member.token, address, counter.db)).status).toBe(404); // POST: no such admin route, but authenticated
    expect((await call(MODELS, LOCAL_TOKEN, address, counter.db)).status).toBe(200);

    const before = counter.queries();
    let unauthenticated = 0;
    let refused: Response | undefined;
    while (!refused && unauthenticated < UNTIL_LIMITED_MAX) {
      const answers = await Promise.all(Array.from({ length: BATCH }, () => call(MODELS, newUserToken(), address, counter.db)));
      for (const res of answers) {
        if (res.status === 401) unauthenticated++;
        else if (res.status === 429) refused ??= res;
        else throw new Error(`a random token answered ${res.status}`);
      }
    }
    expect(refused, "the limit was never reached").toBeDefined();
    expect(unauthenticated).toBeGreaterThanOrEqual(ATTEMPTS_PER_MINUTE - BATCH);
    // Each of those cost a token lookup: the counter sees the worker's D1 queries.
    expect(counter.queries() - before).toBeGreaterThanOrEqual(unauthenticated);

    const flood = counter.queries();
    for (let sent = 0; sent < 1000; sent += BATCH) {
      const answers = await Promise.all(Array.from({ length: BATCH }, () => call(MODELS, newUserToken(), address, counter.db)));
      expect(answers.map((res) => res.status)).toEqual(Array(BATCH).fill(429));
    }
    expect(counter.queries() - flood).toBe(0);

    const last = await call(MODELS, newUserToken(), address, counter.db);
    expect(last.status).toBe(429);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await last.json()).toMatchObject({ code: "resource_exhausted", message: expect.stringMatching(/retry in \d+ s/) });
    const admin = await call("/api/v1/me", newUserToken(), address, counter.db);
    expect(admin.status).toBe(429);
    expect(await admin.json()).toMatchObject({ error: { code: "resource_exhausted" } });

    // Seen valid from the address before the flood: still answered, by D1 as usual.
    expect((await call("/api/v1/me", member.token, address, counter.db)).status).toBe(404);
    expect((await call(MODELS, LOCAL_TOKEN, address, counter.db)).status).toBe(200);
    // Another address is not affected.
    expect((await call(MODELS, newUserToken(), freshAddress(), counter.db)).status).toBe(401);
    // A full turn from the flooded address (RunSSE, BidiAppends) with the token seen valid there.
    const scenario = await createScenario([chatText(["still ", "here"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `hello ${scenario.marker}` },
      { headers: { "cf-connecting-ip": address } },
    );
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("still here");
  }, 240_000);
});

describe("calls per token", () => {
  it("refuses a token's calls past its limit with resource_exhausted and when to retry, in both error shapes, and no other token's", async () => {
    const { admin, member } = await teamWithPeople();
    const address = freshAddress();
    let limited: Response | undefined;
    let answered = 0;
    const small = { TOKEN_CALLS: env.SMALL_TOKEN_CALLS };
    while (!limited && answered < 3 * SMALL_CALLS_PER_MINUTE) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => call(NOTHING, member.token, address, env.DB, small)));
      for (const res of answers) {
        if (res.status === 429) limited ??= res;
        else if (res.status === 501) answered++;
        else throw new Error(`a call answered ${res.status}`);
      }
    }
    expect(limited, "the per-token limit was never reached").toBeDefined();
    expect(answered).toBeGreaterThanOrEqual(SMALL_CALLS_PER_MINUTE - 10);
    expect(limited?.headers.get("retry-after")).toBe("10");
    expect(await limited?.json()).toMatchObject({ code: "resource_exhausted", message: expect.stringContaining("retry in 10 s") });

    const adminApi = await call("/api/v1/me", member.token, address, env.DB, small);
    expect(adminApi.status).toBe(429);
    expect(adminApi.headers.get("retry-after")).toBe("10");
    expect(await adminApi.json()).toMatchObject({
      error: { code: "resource_exhausted", message: expect.stringContaining("retry in 10 s") },
    });
    for (const path of [
      "/agent.v1.AgentService/RunSSE",
      "/aiserver.v1.BidiService/BidiAppend",
      "/codex.code_mode.v1.CodeModeHost/OpenSession",
      MODELS,
    ]) {
      expect((await call(path, member.token, address, env.DB, small)).status, path).toBe(429);
    }
    // The same team's other token, from the same address, is counted on its own.
    expect((await call(NOTHING, admin.token, address, env.DB, small)).status).toBe(501);
  });
});
