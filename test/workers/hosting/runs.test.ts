// GET /api/v1/runs and /api/v1/conversations (docs/hosting.md#runs-api): runs with their
// provider calls, newest first, and conversations summarised from them; who sees what as
// for usage; keyset pages through next_before; and never any prompt or response text.
import { describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import type { RunRecord } from "../../../src/hosting/store/usage-rows.ts";
import { recordRunUsage } from "../../../src/hosting/store/usage-rows.ts";
import { api, type ApiError, expectStatus, LOCAL_TOKEN, type Member, member, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

interface ProviderCall {
  id: string;
  provider: string;
  model: string;
  status: string;
  http_status: number | null;
  finish_reason: string | null;
  attempt: number;
  started_at: string;
  ttfb_ms: number | null;
  ttft_ms: number | null;
  duration_ms: number | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
}

interface Run {
  id: string;
  request_id: string | null;
  conversation_id: string;
  user_id: string;
  email: string | null;
  team_id: string | null;
  model: string;
  status: string;
  started_at: string | null;
  finished_at: string;
  duration_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  provider_calls: ProviderCall[];
}

interface Conversation {
  id: string;
  user_id: string;
  email: string | null;
  team_id: string | null;
  runs: number;
  last_model: string;
  last_status: string;
  started_at: string;
  last_finished_at: string;
  input_tokens: number;
  output_tokens: number;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A personal model of `who` on the fake provider, for real turns. */
async function modelOf(who: Member): Promise<string> {
  const credential = await storeCredential(who.token, "user", `sk-runs-${crypto.randomUUID()}`);
  return (await storeModel(who.token, { credential_id: credential.id, scope: "user", model: "fake-runs" })).name;
}

/** One real turn through the worker, waited for until its run row is in D1. */
async function realTurn(who: Member, model: string, opts: { conversationId?: string; prompt?: string; answer?: string[] } = {}) {
  const scenario = await createScenario([
    chatText(opts.answer ?? ["done"], { usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 } }),
  ]);
  const conversationId = opts.conversationId ?? crypto.randomUUID();
  const { requestId, reader } = await startTurn(
    { conversationId, text: `${opts.prompt ?? "hello"} ${scenario.marker}`, model },
    { headers: bearer(who.token) },
  );
  expect(await reader.end()).toEqual({});
  await vi.waitFor(
    async () => {
      const row = await env.DB.prepare("SELECT 1 FROM usage WHERE run_id LIKE ?").bind(`${requestId}:%`).first();
      expect(row).not.toBeNull();
    },
    { timeout: 5_000 },
  );
  return { conversationId, requestId };
}

/** A run row written as a finished run writes it, at a chosen time, with one provider call. */
async function recordRun(
  who: { principal: string; teamId: string | null },
  atMs: number,
  opts: { conversationId?: string; model?: string; status?: string } = {},
) {
  const runId = `req-${crypto.randomUUID()}:0`;
  const record: RunRecord = {
    requestId: runId.slice(0, -2),
    startedAtMs: atMs - 1_500,
    calls: [
      {
        callId: crypto.randomUUID(),
        providerType: "openai-chat",
        status: "completed",
        httpStatus: 200,
        finishReason: "stop",
        attempt: 0,
        createdAtMs: atMs - 1_000,
        ttfbMs: 100,
        ttftMs: 150,
        durationMs: 900,
        inputTokens: 10,
        outputTokens: 2,
        cacheReadTokens: null,
        cacheWriteTokens: null,
        reasoningTokens: null,
      },
    ],
  };
  const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
  await recordRunUsage(
    env.DB,
    {
      ...who,
      conversationId: opts.conversationId ?? crypto.randomUUID(),
      runId,
      model: opts.model ?? "m",
      status: opts.status ?? "completed",
      usage,
      record,
    },
    atMs,
  );
  return runId;
}

const of = (m: Member) => ({ principal: m.user.id, teamId: m.user.team_id });

async function runs(token: string, query = "") {
  return expectStatus(await api<{ runs: Run[]; next_before: string | null }>("GET", `/api/v1/runs?${query}`, { token }), 200);
}

async function conversations(token: string, query = "") {
  return expectStatus(
    await api<{ conversations: Conversation[]; next_before: string | null }>("GET", `/api/v1/conversations?${query}`, { token }),
    200,
  );
}

function expectError(res: { status: number; body: unknown }, status: number, code: string, message?: RegExp) {
  const body = res.body as ApiError;
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  if (message) expect(body.error.message).toMatch(message);
}

describe("runs API", () => {
  it("a member sees only their own runs, newest first, with their provider calls", async () => {
    const { admin, member: mine } = await teamWithPeople();
    const [myModel, adminModel] = await Promise.all([modelOf(mine), modelOf(admin)]);
    const first = await realTurn(mine, myModel);
    const second = await realTurn(mine, myModel);
    await realTurn(admin, adminModel);

    const answer = await runs(mine.token);
    expect(answer.next_before).toBeNull();
    expect(answer.runs.map((r) => r.request_id)).toEqual([second.requestId, first.requestId]);
    const [run] = answer.runs;
    expect(run).toMatchObject({
      conversation_id: second.conversationId,
      user_id: mine.user.id,
      email: mine.user.email,
      team_id: mine.user.team_id,
      model: myModel,
      status: "completed",
      input_tokens: 30,
      output_tokens: 5,
    });
    expect(run!.id).toMatch(new RegExp(`^${second.requestId}:`));
    expect(Date.parse(run!.finished_at)).toBeGreaterThanOrEqual(Date.parse(run!.started_at!));
    expect(run!.duration_ms).toBe(Date.parse(run!.finished_at) - Date.parse(run!.started_at!));
    expect(run!.provider_calls).toHaveLength(1);
    expect(run!.provider_calls[0]).toMatchObject({
      provider: "openai-chat",
      model: myModel,
      status: "completed",
      http_status: 200,
      attempt: 0,
      input_tokens: 30,
      output_tokens: 5,
    });
    expect(run!.provider_calls[0]!.duration_ms).toEqual(expect.any(Number));
    expect(Date.parse(run!.provider_calls[0]!.started_at)).toBeGreaterThanOrEqual(Date.parse(run!.started_at!));
    // Naming their own team does not widen a member's view.
    expect((await runs(mine.token, `team_id=${mine.user.team_id}`)).runs).toHaveLength(2);
  });

  it("an admin sees the team's runs and not another team's", async () => {
    const one = await teamWithPeople();
    const two = await teamWithPeople();
    const base = Date.UTC(2034, 0, 1);
    const mine = await recordRun(of(one.member), base);
    const admins = await recordRun(of(one.admin), base + 1_000);
    await recordRun(of(two.member), base + 2_000);

    expect((await runs(one.admin.token)).runs.map((r) => r.id)).toEqual([admins, mine]);
    expect((await runs(one.admin.token, `user_id=${one.member.user.id}`)).runs.map((r) => r.id)).toEqual([mine]);
    expectError(await api("GET", `/api/v1/runs?team_id=${two.team.id}`, { token: one.admin.token }), 404, "not_found", /team/);
    expectError(await api("GET", `/api/v1/runs?user_id=${two.member.user.id}`, { token: one.admin.token }), 404, "not_found", /user/);
    // A member cannot name a teammate, nor local.
    expectError(await api("GET", `/api/v1/runs?user_id=${one.admin.user.id}`, { token: one.member.token }), 404, "not_found");
    expectError(await api("GET", "/api/v1/runs?user_id=local", { token: one.member.token }), 404, "not_found");
  });

  it("the operator narrows runs to one team, one user or one conversation", async () => {
    const one = await teamWithPeople();
    const two = await teamWithPeople();
    const base = Date.UTC(2035, 0, 1);
    const conversationId = crypto.randomUUID();
    const a = await recordRun(of(one.member), base, { conversationId });
    const b = await recordRun(of(one.member), base + 1_000);
    const c = await recordRun(of(two.admin), base + 2_000);

    expect((await runs("test-admin-token", `team_id=${one.team.id}`)).runs.map((r) => r.id)).toEqual([b, a]);
    expect((await runs("test-admin-token", `team_id=${two.team.id}`)).runs.map((r) => r.id)).toEqual([c]);
    expect(
      (await runs("test-admin-token", `user_id=${one.member.user.id}&conversation_id=${conversationId}`)).runs.map((r) => r.id),
    ).toEqual([a]);
    expect((await runs("test-admin-token", "limit=200")).runs.map((r) => r.id)).toEqual(expect.arrayContaining([a, b, c]));
    expectError(await api("GET", "/api/v1/runs?team_id=team_000000000000000000000000"), 404, "not_found");
    expectError(await api("GET", "/api/v1/runs?user_id=usr_000000000000000000000000"), 404, "not_found");
  });

  it("local sees its own runs only, with no email", async () => {
    const { member: someone } = await teamWithPeople();
    await recordRun(of(someone), Date.UTC(2036, 0, 1));
    const local = await recordRun({ principal: "local", teamId: null }, Date.UTC(2036, 0, 2));
    const answer = await runs(LOCAL_TOKEN, "limit=200&user_id=local");
    expect(answer.runs.every((r) => r.user_id === "local" && r.email === null && r.team_id === null)).toBe(true);
    expect(answer.runs.map((r) => r.id)).toContain(local);
  });

  it("runs page through next_before without repeats or gaps", async () => {
    const { member: mine } = await teamWithPeople();
    const base = Date.UTC(2037, 0, 1);
    // Two runs finish in the same millisecond: the row id breaks the tie.
    const times = [0, 1_000, 2_000, 2_000, 3_000, 4_000, 5_000].map((t) => base + t);
    for (const at of times) await recordRun(of(mine), at);
    const all = (await runs(mine.token, "limit=200")).runs.map((r) => r.id);
    expect(all).toHaveLength(times.length);

    const seen: string[] = [];
    const sizes: number[] = [];
    let before: string | null = null;
    for (let page = 0; page < 10; page++) {
      const answer = await runs(mine.token, `limit=3${before ? `&before=${before}` : ""}`);
      seen.push(...answer.runs.map((r) => r.id));
      sizes.push(answer.runs.length);
      before = answer.next_before;
      if (before === null) break;
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(all);
    const finished = (await runs(mine.token, "limit=200")).runs.map((r) => Date.parse(r.finished_at));
    expect(finished).toEqual([...finished].sort((x, y) => y - x));
  });

  it("a run carries no prompt or response text", async () => {
    const { member: mine } = await teamWithPeople();
    const model = await modelOf(mine);
    const prompt = `secret-prompt-${crypto.randomUUID()}`;
    const answer = `secret-answer-${crypto.randomUUID()}`;
    const { conversationId } = await realTurn(mine, model, { prompt, answer: [answer] });
    const listed = await runs(mine.token, `conversation_id=${conversationId}`);
    expect(listed.runs).toHaveLength(1);
    expect(listed.runs[0]!.provider_calls).toHaveLength(1);
    const text = JSON.stringify([listed, await conversations(mine.token)]);
    for (const secret of [prompt, answer, prompt.slice(0, 20), answer.slice(-20)]) expect(text).not.toContain(secret);
  });

  it("refuses a bad limit or cursor with invalid_argument naming the parameter", async () => {
    const { member: mine } = await teamWithPeople();
    for (const path of ["/api/v1/runs", "/api/v1/conversations"]) {
      for (const [query, message] of [
        ["limit=0", /query\.limit/],
        ["limit=201", /query\.limit/],
        ["limit=many", /query\.limit/],
        ["before=not-a-cursor!", /query\.before/],
        [`before=${btoa("hello")}`, /query\.before/],
        ["before=", /query\.before/],
        // base64url characters that cannot be base64 (a length of 1 mod 4)
        ["before=x", /query\.before/],
      ] as const) {
        expectError(await api("GET", `${path}?${query}`, { token: mine.token }), 400, "invalid_argument", message);
      }
      expect((await api("GET", path, { token: null })).status).toBe(401);
    }
  });
});

describe("conversations API", () => {
  it("lists conversations most recently active first, with their runs, last run and token sums", async () => {
    const { admin, member: mine } = await teamWithPeople();
    const base = Date.UTC(2038, 0, 1);
    const [older, newer] = [crypto.randomUUID(), crypto.randomUUID()];
    await recordRun(of(mine), base, { conversationId: older, model: "m-1" });
    await recordRun(of(mine), base + 1_000, { conversationId: newer, model: "m-1" });
    await recordRun(of(mine), base + 2_000, { conversationId: older, model: "m-2", status: "cancelled" });
    await recordRun(of(admin), base + 3_000);

    const answer = await conversations(mine.token);
    expect(answer.next_before).toBeNull();
    expect(answer.conversations).toEqual([
      {
        id: older,
        user_id: mine.user.id,
        email: mine.user.email,
        team_id: mine.user.team_id,
        runs: 2,
        last_model: "m-2",
        last_status: "cancelled",
        started_at: new Date(base - 1_500).toISOString(),
        last_finished_at: new Date(base + 2_000).toISOString(),
        input_tokens: 20,
        output_tokens: 4,
      },
      expect.objectContaining({ id: newer, runs: 1, last_model: "m-1", last_status: "completed" }),
    ]);
    // The admin sees the team's, the member's among them; a user narrows it.
    expect((await conversations(admin.token)).conversations).toHaveLength(3);
    expect((await conversations(admin.token, `user_id=${mine.user.id}`)).conversations.map((c) => c.id)).toEqual([older, newer]);
  });

  it("conversations page through next_before without repeats or gaps", async () => {
    const { member: mine } = await teamWithPeople();
    const base = Date.UTC(2039, 0, 1);
    const ids = Array.from({ length: 5 }, () => crypto.randomUUID());
    for (const [i, id] of ids.entries()) await recordRun(of(mine), base + i * 1_000, { conversationId: id });
    // A second run moves the first conversation to the front.
    await recordRun(of(mine), base + 10_000, { conversationId: ids[0] });

    const seen: string[] = [];
    let before: string | null = null;
    for (let page = 0; page < 10; page++) {
      const answer = await conversations(mine.token, `limit=2${before ? `&before=${before}` : ""}`);
      seen.push(...answer.conversations.map((c) => c.id));
      before = answer.next_before;
      if (before === null) break;
    }
    expect(seen).toEqual([ids[0], ids[4], ids[3], ids[2], ids[1]]);
  });

  it("names the conversations of a user outside the caller's reach not found", async () => {
    const one = await teamWithPeople();
    const other = await member(one.team.id, "member");
    expectError(await api("GET", `/api/v1/conversations?user_id=${other.user.id}`, { token: one.member.token }), 404, "not_found");
    const two = await teamWithPeople();
    expectError(await api("GET", `/api/v1/conversations?team_id=${two.team.id}`, { token: one.admin.token }), 404, "not_found");
  });
});
