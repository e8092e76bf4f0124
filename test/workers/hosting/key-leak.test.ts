// Proofs for hosting (docs/hosting.md#proofs): after full turns, no byte of a provider
// key is anywhere it should not be (every D1 table, the conversation object's SQLite,
// the console), in plain text, base64, base64url, hex or as a prefix; usage rows equal
// the provider's own usage figures; the OpenAPI document lists every /api/v1 route.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { createDataKey } from "../../../src/hosting/keys/data-key.ts";
import { encryptCredentialKey, keyLastFour } from "../../../src/hosting/keys/credential-key.ts";
import { conversationName } from "../../../src/core/object-names.ts";
import { d1, newId } from "../../../src/hosting/store/db.ts";
import { credentials, models } from "../../../src/hosting/store/schema/providers.ts";
import { adminApi } from "../../../src/hosting/admin/api.ts";
import { messageDelta, messageStart, messageStop, textBlock } from "../../fixtures/anthropic/stream.ts";
import { api, type Member, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn, usableModelNames } from "../../support/cursor-client.ts";
import { chatText, createScenario, fakeProviderUrl, httpError } from "../../support/fake-provider.ts";

/** A key no other test uses, long enough that its prefixes and encodings are unmistakable. */
const hostedKey = () => `sk-hosted-${crypto.randomUUID().replaceAll("-", "")}-never-stored`;
const SINGLE_USER_KEY = "sk-test-never-logged-0123456789"; // TEST_API_KEY (vitest.config.ts)

/** What must not appear: the key, its prefixes, and its base64 / base64url / hex forms at every alignment. */
function forbiddenForms(key: string): string[] {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const b64 = (s: string) => btoa(String.fromCharCode(...bytes(s)));
  const hex = (s: string) => [...bytes(s)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const forms = [key, key.slice(0, 12), key.slice(0, 16), key.slice(4, 20), key.slice(-12)];
  for (let shift = 0; shift < 3; shift++) {
    // The middle of an encoding does not depend on padding or what surrounds it.
    const encoded = b64(key.slice(shift)).replace(/=+$/, "");
    const middle = encoded.slice(4, 24);
    forms.push(middle, middle.replaceAll("+", "-").replaceAll("/", "_"));
  }
  forms.push(hex(key), hex(key).toUpperCase(), hex(key.slice(0, 12)));
  return forms;
}

/** Any cell as text: blobs as latin1 and hex, so key bytes inside binary columns are found too. */
function cellText(value: unknown): string {
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const view = value instanceof ArrayBuffer ? new Uint8Array(value) : new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return `${String.fromCharCode(...view)} ${[...view].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  }
  return typeof value === "string" ? value : JSON.stringify(value);
}

function findLeaks(where: string, texts: string[], key: string): string[] {
  const forms = forbiddenForms(key);
  return texts.flatMap((text) => forms.filter((form) => text.includes(form)).map((form) => `${where}: contains ${JSON.stringify(form)}`));
}

async function d1Dump(): Promise<{ tables: string[]; texts: string[] }> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
  ).all<{ name: string }>();
  const tables = results.map((r) => r.name);
  const texts: string[] = [];
  for (const table of tables) {
    const rows = await env.DB.prepare(`SELECT * FROM "${table}"`).all<Record<string, unknown>>();
    for (const row of rows.results) texts.push(`${table}: ${Object.values(row).map(cellText).join(" | ")}`);
  }
  return { tables, texts };
}

function conversationDump(principal: string, conversationId: string): Promise<{ tables: string[]; texts: string[] }> {
  return runInDurableObject(env.CONVERSATION.getByName(conversationName(principal, conversationId)), (_instance, state) => {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'")
      .toArray()
      .map((r) => r.name);
    const texts = tables.flatMap((table) =>
      sql
        .exec(`SELECT * FROM "${table}"`)
        .toArray()
        .map((row) => `${table}: ${Object.values(row).map(cellText).join(" | ")}`),
    );
    return { tables, texts };
  });
}

/** Everything written to the console while a test runs (observation only: the calls still go through). */
let consoleLines: string[] = [];
beforeEach(() => {
  consoleLines = [];
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleLines.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : cellText(a))).join(" "));
      original(...args);
    });
  }
});
afterEach(() => vi.restoreAllMocks());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A personal credential and model of `user` on the fake provider, through the credentials and
 * models API where the deployment has it, else as rows written the way that API stores them.
 */
async function storedModel(user: Member, apiKey: string): Promise<string> {
  const name = `hosted-${crypto.randomUUID().slice(0, 8)}`;
  const baseUrl = `${fakeProviderUrl()}/v1`;
  const made = await api<{ id: string }>("POST", "/api/v1/credentials", {
    token: user.token,
    body: { name: "mine", provider: "openai-chat", base_url: baseUrl, api_key: apiKey, scope: "user" },
  });
  if (made.status === 201) {
    const model = await api("POST", "/api/v1/models", {
      token: user.token,
      body: { name, credential_id: made.body.id, model: "fake-h", scope: "user", context_window: 128000 },
    });
    expect(model.status).toBe(201);
    return name;
  }
  expect(made.status).toBe(404);
  const db = d1(env.DB);
  const teamId = user.user.team_id;
  const { dataKey, wrapped } = await createDataKey(env as never, teamId);
  await env.DB.prepare("UPDATE teams SET wrapped_data_key = ? WHERE id = ?").bind(wrapped, teamId).run();
  const credentialId = newId("cred");
  const now = Date.now();
  await db.insert(credentials).values({
    id: credentialId,
    teamId,
    ownerUserId: user.user.id,
    scope: "user",
    name: "mine",
    provider: "openai-chat",
    baseUrl,
    headersJson: null,
    encryptedKey: await encryptCredentialKey(dataKey, { teamId, credentialId }, apiKey),
    keyLastFour: keyLastFour(apiKey),
    createdAtMs: now,
    updatedAtMs: now,
    deletedAtMs: null,
  });
  await db.insert(models).values({
    id: newId("mdl"),
    teamId,
    ownerUserId: user.user.id,
    scope: "user",
    name,
    credentialId,
    model: "fake-h",
    contextWindow: 128000,
    createdAtMs: now,
    updatedAtMs: now,
  });
  return name;
}

async function runRecord(requestId: string) {
  let row: Record<string, unknown> | null = null;
  await vi.waitFor(
    async () => {
      row = await env.DB.prepare("SELECT * FROM usage WHERE run_id LIKE ?").bind(`${requestId}:%`).first();
      expect(row).not.toBeNull();
    },
    { timeout: 5_000 },
  );
  return row as unknown as Record<string, unknown>;
}

describe("no key bytes at rest or in logs", () => {
  it("keeps a hosted user's stored key out of D1, the conversation object and the console after a full turn", async (ctx) => {
    const apiKey = hostedKey();
    const { member } = await teamWithPeople();
    const model = await storedModel(member, apiKey);
    if (!(await usableModelNames(member.token)).includes(model)) {
      ctx.skip("hosted users' stored models are not served yet (the credentials and models part of docs/hosting.md)");
    }
    const scenario = await createScenario([chatText(["hosted ", "answer"], { usage: { prompt_tokens: 21, completion_tokens: 2 } })]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn(
      { conversationId, text: `hello ${scenario.marker}`, model },
      { headers: bearer(member.token) },
    );
    expect(await reader.end()).toEqual({});
    const [request] = await scenario.requests(1);
    expect(request!.headers.authorization).toBe(`Bearer ${apiKey}`);
    await runRecord(requestId);

    const database = await d1Dump();
    expect(database.tables).toEqual(
      expect.arrayContaining(["teams", "users", "tokens", "credentials", "models", "usage", "provider_calls"]),
    );
    const object = await conversationDump(member.user.id, conversationId);
    expect(object.tables.length).toBeGreaterThan(0);
    expect([
      ...findLeaks("D1", database.texts, apiKey),
      ...findLeaks("conversation object", object.texts, apiKey),
      ...findLeaks("console", consoleLines, apiKey),
    ]).toEqual([]);
    // The scan would have found it: the recorded provider request does carry the key.
    expect(findLeaks("provider request", [JSON.stringify(request!.headers)], apiKey)).not.toEqual([]);
  });

  it("keeps the single-user key out of D1, the conversation object and the console after a full turn", async () => {
    const scenario = await createScenario([chatText(["local ", "answer"])]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `hello ${scenario.marker}`, model: "fake-model" });
    expect(await reader.end()).toEqual({});
    expect((await scenario.requests(1))[0]!.headers.authorization).toBe(`Bearer ${SINGLE_USER_KEY}`);
    await runRecord(requestId);

    const database = await d1Dump();
    const object = await conversationDump("local", conversationId);
    expect(object.texts.join("\n")).toContain("local answer");
    expect(database.tables).toEqual(expect.arrayContaining(["usage", "provider_calls", "usage_ledger", "d1_migrations"]));
    // The scan finds every form it looks for, at any alignment.
    for (const planted of [`x${SINGLE_USER_KEY}`, btoa(`ab${SINGLE_USER_KEY}`), cellText(new TextEncoder().encode(SINGLE_USER_KEY))]) {
      expect(findLeaks("probe", [planted], SINGLE_USER_KEY)).not.toEqual([]);
    }
    expect([
      ...findLeaks("D1", database.texts, SINGLE_USER_KEY),
      ...findLeaks("conversation object", object.texts, SINGLE_USER_KEY),
      ...findLeaks("console", consoleLines, SINGLE_USER_KEY),
    ]).toEqual([]);
  });
});

describe("a provider error that echoes the key", () => {
  /** How providers have echoed keys: a prefix ("Incorrect API key provided: sk-abc…"), a Basic header, a hex dump. */
  function echoingError(key: string) {
    const base64 = btoa(`user:${key}`);
    const base64url = btoa(`:${key}`).replaceAll("+", "-").replaceAll("/", "_");
    const hex = [...new TextEncoder().encode(key)].map((b) => b.toString(16).padStart(2, "0")).join("");
    return httpError(401, `Incorrect API key provided: ${key.slice(0, 16)}****. Sent Basic ${base64}; ${base64url}; ${hex}`);
  }

  async function failedTurn(key: string, model: string, principal: string, headers: Record<string, string> = {}) {
    const scenario = await createScenario([echoingError(key), chatText(["never"])]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `echo ${scenario.marker}`, model }, { headers });
    const end = await reader.end();
    expect(end.error?.code).toBe("unavailable");
    expect(end.error?.message).toMatch(/HTTP 401: Incorrect API key provided: \[redacted\]/);
    const object = await runInDurableObject(env.CONVERSATION.getByName(conversationName(principal, conversationId)), (_i, state) => ({
      runs: state.storage.sql.exec<{ failure_message: string }>("SELECT failure_message FROM runs").toArray(),
      calls: state.storage.sql.exec<{ error: string }>("SELECT error FROM llm_calls").toArray(),
    }));
    expect(object.runs[0]?.failure_message).toContain("Incorrect API key provided");
    expect(object.calls[0]?.error).toContain("Incorrect API key provided");
    const stored = await conversationDump(principal, conversationId);
    return [
      ...findLeaks("the client's end-stream frame", [JSON.stringify(end), ...reader.frames.map((f) => JSON.stringify(f, bigints))], key),
      ...findLeaks(
        "runs.failure_message",
        object.runs.map((r) => r.failure_message),
        key,
      ),
      ...findLeaks(
        "llm_calls.error",
        object.calls.map((c) => c.error),
        key,
      ),
      ...findLeaks("conversation object", stored.texts, key),
      ...findLeaks("D1", (await d1Dump()).texts, key),
      ...findLeaks("console", consoleLines, key),
    ];
  }

  it("never reaches the client, runs.failure_message or llm_calls.error as a prefix, base64 or hex of a hosted credential's key", async (ctx) => {
    // Not shaped like sk-…, so only the key itself can tell its prefix apart from other text.
    const apiKey = `gw_${crypto.randomUUID().replaceAll("-", "")}.hosted`;
    const { member } = await teamWithPeople();
    const model = await storedModel(member, apiKey);
    if (!(await usableModelNames(member.token)).includes(model)) ctx.skip("hosted users' stored models are not served yet");
    expect(await failedTurn(apiKey, model, member.user.id, bearer(member.token))).toEqual([]);
  });

  it("never reaches the client, runs.failure_message or llm_calls.error as a prefix, base64 or hex of the single-user key", async () => {
    expect(await failedTurn(SINGLE_USER_KEY, "fake-model", "local")).toEqual([]);
  });
});

const bigints = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

describe("usage equals the provider's figures", () => {
  const ledger = (model: string) =>
    env.DB.prepare(
      "SELECT requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens FROM usage_ledger WHERE day = ? AND principal = 'local' AND model = ?",
    )
      .bind(new Date().toISOString().slice(0, 10), model)
      .first<Record<string, number>>();
  const ZERO = { requests: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 };
  const COUNTS = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"] as const;

  async function turn(model: string, response: Parameters<typeof createScenario>[0][number]) {
    const before = (await ledger(model)) ?? ZERO;
    const scenario = await createScenario([response]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `count ${scenario.marker}`, model });
    expect(await reader.end()).toEqual({});
    const run = await runRecord(requestId);
    const { results: calls } = await env.DB.prepare("SELECT * FROM provider_calls WHERE run_id LIKE ?").bind(`${requestId}:%`).all();
    return { before, run, calls, after: (await ledger(model)) ?? ZERO };
  }

  it("records OpenAI Chat's prompt, completion, cached and reasoning tokens in the run, its call and the ledger", async () => {
    const figures = { input_tokens: 300, output_tokens: 40, cache_read_tokens: 120, cache_write_tokens: 0, reasoning_tokens: 25 };
    const usage = {
      prompt_tokens: 300,
      completion_tokens: 40,
      prompt_tokens_details: { cached_tokens: 120 },
      completion_tokens_details: { reasoning_tokens: 25 },
    };
    const { before, run, calls, after } = await turn("fake-small", chatText(["counted"], { usage }));
    expect(run).toMatchObject({ principal: "local", status: "completed", ...figures });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject(figures);
    expect(after.requests).toBe(before.requests + 1);
    for (const count of COUNTS) expect(after[count]).toBe((before[count] ?? 0) + figures[count]);
  });

  it("records Anthropic's input, output, cache read and cache write tokens in the run, its call and the ledger", async () => {
    // Anthropic counts cached input apart; byok-edge's input_tokens is all of the prompt: 10 + 30 + 5.
    const usage = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 30, cache_creation_input_tokens: 5 };
    const response = {
      steps: [messageStart(`msg_${crypto.randomUUID()}`, usage), ...textBlock(0, ["counted"]), messageDelta("end_turn", 9), messageStop()],
    };
    const figures = { input_tokens: 45, output_tokens: 9, cache_read_tokens: 30, cache_write_tokens: 5, reasoning_tokens: 0 };
    const { before, run, calls, after } = await turn("fake-anthropic", response);
    expect(run).toMatchObject({ principal: "local", status: "completed", ...figures });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject(figures);
    expect(after.requests).toBe(before.requests + 1);
    for (const count of COUNTS) expect(after[count]).toBe((before[count] ?? 0) + figures[count]);
  });
});

describe("the OpenAPI document the worker serves", () => {
  it("lists every /api/v1 route the worker serves, and every route it lists is served", async () => {
    const doc = await api<{ paths: Record<string, Record<string, unknown>> }>("GET", "/api/openapi.json", { token: null });
    const documented = Object.entries(doc.body.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const served = adminApi.routes
      .filter((r) => r.path.startsWith("/api/v1/") && r.method !== "ALL" && !r.path.includes("*"))
      .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, "{$1}")}`);
    expect(new Set(documented)).toEqual(new Set(served));
    expect(documented).toEqual(expect.arrayContaining(["GET /api/v1/usage", "POST /api/v1/admin/rewrap"]));
    // Through the worker itself, no documented route falls through to the catch-all.
    for (const route of documented) {
      const [method, path] = route.split(" ") as [string, string];
      const res = await api<{ error?: { message: string } }>(method, path.replace(/\{[^}]+\}/g, "x_none"), { token: null });
      expect(res.body?.error?.message ?? "", route).not.toMatch(/is not an admin API route/);
    }
  });
});
