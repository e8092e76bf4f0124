// Realistic data for the dashboard's screenshots (docs/dashboard.md#screenshots),
// on a throwaway `wrangler dev`: two teams, their users, tokens, credentials on the
// fake provider and priced models, made through the admin API; then real turns with
// scripted usage figures (one after a failed attempt, so a run has two provider
// calls). The ledger is per UTC day of a run, and real turns all happen today, so
// the past four weeks of the ledger are written straight into local D1 (usage_ledger
// rows only: those days have no runs behind them). Screenshots only.
import { callApi } from "../../e2e/support/admin-api.ts";
import { runTurn, textParts } from "../../e2e/support/agent-turn.ts";
import { until } from "../../e2e/support/until.ts";
import { runWrangler } from "../../e2e/support/wrangler-dev.ts";

const CALL_TIMEOUT_MS = 15_000;

export interface Seeded {
  /** Ada, the Platform team's admin: most screenshots are hers. */
  adminToken: string;
  memberToken: string;
  platformTeamId: string;
}

interface Ctx {
  baseUrl: string;
  operatorToken: string;
  providerBase: string;
  workDir: string;
}

/** The admin API on this wrangler dev as `token`. */
const call = <T = unknown>(ctx: Ctx, token: string, method: string, path: string, body?: unknown): Promise<T> =>
  callApi<T>(ctx.baseUrl, token, method, path, body);

const PRICES = {
  "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
  "claude-sonnet-4": { input: 3, output: 15, cacheRead: 0.3 },
} as const;
type ModelName = keyof typeof PRICES;

export async function seed(ctx: Ctx): Promise<Seeded> {
  const op = ctx.operatorToken;
  const platform = await call<{ id: string }>(ctx, op, "POST", "/teams", { name: "Platform", monthly_token_budget: 40_000_000 });
  await call(ctx, op, "POST", "/teams", { name: "Research", monthly_token_budget: null });
  await call(ctx, op, "POST", "/teams", { name: "Support tools", monthly_token_budget: 5_000_000 });

  const addUser = (email: string, role: string, limits: Record<string, number | null>) =>
    call<{ id: string }>(ctx, op, "POST", `/teams/${platform.id}/users`, { email, role, ...limits });
  const ada = await addUser("ada@example.com", "admin", { requests_per_minute: 60, max_concurrent_runs: 4 });
  const grace = await addUser("grace@example.com", "member", { requests_per_minute: 30, max_concurrent_runs: 2 });
  const linus = await addUser("linus@example.com", "member", {});
  const issue = (userId: string, name: string) =>
    call<{ token: string }>(ctx, op, "POST", `/users/${userId}/tokens`, { name }).then((t) => t.token);
  const adaToken = await issue(ada.id, "Ada's laptop");
  await issue(ada.id, "CI pipeline");
  const graceToken = await issue(grace.id, "desktop");
  const linusToken = await issue(linus.id, "workstation");

  // The team's keys: throwaway strings; the fake provider takes any key.
  const openai = await call<{ id: string }>(ctx, adaToken, "POST", "/credentials", {
    name: "OpenAI (team)",
    provider: "openai-chat",
    base_url: `${ctx.providerBase}/v1`,
    api_key: "demo-openai-not-a-real-key-f3a9",
    scope: "team",
  });
  const anthropic = await call<{ id: string }>(ctx, adaToken, "POST", "/credentials", {
    name: "Anthropic (team)",
    provider: "anthropic",
    base_url: `${ctx.providerBase}/v1`,
    api_key: "demo-anthropic-not-a-real-key-7c21",
    scope: "team",
  });
  await call(ctx, graceToken, "POST", "/credentials", {
    name: "Grace's OpenRouter key",
    provider: "openai-chat",
    base_url: `${ctx.providerBase}/v1`,
    api_key: "demo-openrouter-not-a-real-key-09be",
    scope: "user",
  });
  const model = (name: ModelName, credentialId: string, extra: Record<string, unknown> = {}) =>
    call(ctx, adaToken, "POST", "/models", {
      name,
      credential_id: credentialId,
      model: name,
      scope: "team",
      context_window: name === "claude-sonnet-4" ? 200_000 : 1_047_576,
      price_input_per_mtok: PRICES[name].input,
      price_output_per_mtok: PRICES[name].output,
      price_cache_read_per_mtok: PRICES[name].cacheRead,
      ...extra,
    });
  await model("gpt-4.1", openai.id, { max_output_tokens: 32_768 });
  await model("gpt-4.1-mini", openai.id);
  await model("claude-sonnet-4", anthropic.id, { max_output_tokens: 64_000, enabled: false });

  // Before any turn: the team's budget counter starts from the ledger of the month.
  await writeLedgerHistory(ctx, platform.id, [ada.id, grace.id, linus.id]);

  const turn = async (
    token: string,
    name: ModelName,
    usage: { prompt: number; completion: number; cached?: number },
    failFirst?: number[],
  ) => {
    const run = await runTurn({
      route: { baseUrl: ctx.baseUrl },
      token,
      model: name,
      providerBase: ctx.providerBase,
      parts: textParts("Done: the handler now retries on 503 and the test covers it."),
      usage,
      ...(failFirst && { failFirst }),
    });
    if (!run.updates.some((u) => u.case === "turnEnded")) throw new Error(`the turn on ${name} ended without turn_ended`);
  };
  await turn(adaToken, "gpt-4.1", { prompt: 18_432, completion: 1_207, cached: 12_288 });
  await turn(adaToken, "gpt-4.1-mini", { prompt: 9_870, completion: 640, cached: 6_144 }, [503]);
  await turn(graceToken, "gpt-4.1-mini", { prompt: 4_211, completion: 388 });
  await turn(graceToken, "gpt-4.1", { prompt: 27_655, completion: 2_904, cached: 20_480 });
  await turn(linusToken, "gpt-4.1", { prompt: 12_044, completion: 955, cached: 4_096 });
  await waitForRuns(ctx, adaToken, 5);
  return { adminToken: adaToken, memberToken: graceToken, platformTeamId: platform.id };
}

/** Usage is recorded after the run (waitUntil); bounded poll until the team's runs are all there. */
async function waitForRuns(ctx: Ctx, token: string, count: number): Promise<void> {
  await until(`${count} runs in the ledger`, CALL_TIMEOUT_MS, async () => {
    const usage = await call<{ rows: { requests: number }[] }>(ctx, token, "GET", "/usage?group_by=model");
    return usage.rows.reduce((n, r) => n + r.requests, 0) >= count ? true : undefined;
  });
}

/** A small deterministic PRNG, so every re-take draws the same weeks. */
function random(seedValue: number): () => number {
  let s = seedValue >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Ledger rows for the 28 days before today and today's morning: weekdays busier than weekends, cache reads growing as prompts get cached. */
async function writeLedgerHistory(ctx: Ctx, teamId: string, userIds: string[]): Promise<void> {
  const next = random(12);
  const rows: string[] = [];
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  for (let back = 28; back >= 0; back--) {
    const dayMs = today - back * 86_400_000;
    const day = new Date(dayMs).toISOString().slice(0, 10);
    const weekend = [0, 6].includes(new Date(dayMs).getUTCDay());
    const part = back === 0 ? 0.4 : 1; // today is not over
    userIds.forEach((userId, u) => {
      for (const name of ["gpt-4.1", "gpt-4.1-mini"] as const) {
        if (weekend && next() < 0.7) continue;
        const scale = (u === 0 ? 1.4 : u === 1 ? 1 : 0.5) * (name === "gpt-4.1" ? 1 : 0.6) * (weekend ? 0.3 : 1) * part;
        const requests = Math.max(1, Math.round((8 + next() * 30) * scale));
        const input = Math.round(requests * (14_000 + next() * 9_000));
        const output = Math.round(requests * (700 + next() * 900));
        const hit = 0.35 + 0.3 * ((28 - back) / 28) + next() * 0.1;
        const cacheRead = Math.round(input * hit);
        const p = PRICES[name];
        const cost = ((input - cacheRead) * p.input + cacheRead * p.cacheRead + output * p.output) / 1e6;
        rows.push(
          `('${day}', '${userId}', '${teamId}', '${name}', ${requests}, ${input}, ${output}, ${cacheRead}, 0, 0, ${cost.toFixed(6)})`,
        );
      }
    });
  }
  const sql = `INSERT INTO usage_ledger (day, principal, team_id, model, requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd) VALUES ${rows.join(", ")}`;
  await runWrangler(
    ["d1", "execute", "byok-edge", "--local", "--persist-to", `${ctx.workDir}/state`, "--command", sql],
    ctx.workDir,
    60_000,
  );
}
