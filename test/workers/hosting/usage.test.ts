// GET /api/v1/usage over the usage ledger: a member and local see their own, an
// admin their team's, the operator everyone's (narrowed by team_id); sums per
// day, user or model over a validated range of UTC days.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { recordRunUsage } from "../../../src/hosting/store/usage-rows.ts";
import { api, type ApiError, expectStatus, LOCAL_TOKEN, type Member, OPERATOR_TOKEN, teamWithPeople } from "../../support/admin-client.ts";

interface UsageRow {
  day?: string;
  user_id?: string;
  email?: string | null;
  model?: string;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
}

interface UsageAnswer {
  from: string;
  to: string;
  group_by: string;
  rows: UsageRow[];
}

/** Each test uses its own year, so ledger rows of other tests stay out of its ranges. */
async function spend(
  year: number,
  who: { principal: string; teamId: string | null },
  day: string,
  model: string,
  input: number,
  output: number,
) {
  const usage = { inputTokens: input, outputTokens: output, cacheReadTokens: 2, cacheWriteTokens: 1, reasoningTokens: 3 };
  await recordRunUsage(
    env.DB,
    { ...who, conversationId: crypto.randomUUID(), runId: crypto.randomUUID(), model, status: "completed", usage, record: undefined },
    Date.parse(`${year}-${day}T12:00:00Z`),
  );
}

const of = (m: Member) => ({ principal: m.user.id, teamId: m.user.team_id });

async function usage(token: string, query: string) {
  return expectStatus(await api<UsageAnswer>("GET", `/api/v1/usage?${query}`, { token }), 200);
}

const sums = (rows: UsageRow[]) => rows.map((r) => [r.day ?? r.user_id ?? r.model, r.requests, r.input_tokens, r.output_tokens]);

describe("usage API", () => {
  it("gives a member their own usage per day, model or user, with every token count", async () => {
    const { admin, member } = await teamWithPeople();
    await spend(2031, of(member), "03-01", "m-a", 100, 10);
    await spend(2031, of(member), "03-01", "m-b", 50, 5);
    await spend(2031, of(member), "03-02", "m-a", 7, 1);
    await spend(2031, of(admin), "03-01", "m-a", 1000, 100);
    await spend(2031, of(member), "04-01", "m-a", 9999, 9999);

    const range = "from=2031-03-01&to=2031-03-31";
    const byDay = await usage(member.token, `${range}&group_by=day`);
    expect(byDay).toMatchObject({ from: "2031-03-01", to: "2031-03-31", group_by: "day" });
    expect(byDay.rows).toEqual([
      {
        day: "2031-03-01",
        requests: 2,
        input_tokens: 150,
        output_tokens: 15,
        cache_read_tokens: 4,
        cache_write_tokens: 2,
        reasoning_tokens: 6,
        cost_usd: 0,
        cells: 0,
        cell_wall_ms: 0,
      },
      {
        day: "2031-03-02",
        requests: 1,
        input_tokens: 7,
        output_tokens: 1,
        cache_read_tokens: 2,
        cache_write_tokens: 1,
        reasoning_tokens: 3,
        cost_usd: 0,
        cells: 0,
        cell_wall_ms: 0,
      },
    ]);
    expect(sums((await usage(member.token, `${range}&group_by=model`)).rows)).toEqual([
      ["m-a", 2, 107, 11],
      ["m-b", 1, 50, 5],
    ]);
    expect(sums((await usage(member.token, `${range}&group_by=user`)).rows)).toEqual([[member.user.id, 3, 157, 16]]);
    // group_by defaults to day.
    expect((await usage(member.token, range)).group_by).toBe("day");
  });

  it("gives an admin the whole team and nobody else's team", async () => {
    const one = await teamWithPeople();
    const two = await teamWithPeople();
    await spend(2032, of(one.member), "01-05", "m", 10, 1);
    await spend(2032, of(one.admin), "01-05", "m", 20, 2);
    await spend(2032, of(two.member), "01-05", "m", 40, 4);

    const range = "from=2032-01-01&to=2032-01-31&group_by=user";
    const team = (await usage(one.admin.token, range)).rows;
    expect(sums(team)).toEqual(
      [
        [one.admin.user.id, 1, 20, 2],
        [one.member.user.id, 1, 10, 1],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect(sums((await usage(one.admin.token, `${range}&team_id=${one.team.id}`)).rows)).toEqual(sums(team));
    const foreign = await api<ApiError>("GET", `/api/v1/usage?${range}&team_id=${two.team.id}`, { token: one.admin.token });
    expect({ status: foreign.status, code: foreign.body.error.code }).toEqual({ status: 404, code: "not_found" });
    // A member naming their own team still sees only their own rows.
    expect(sums((await usage(one.member.token, `${range}&team_id=${one.team.id}`)).rows)).toEqual([[one.member.user.id, 1, 10, 1]]);
  });

  it("gives the operator every principal, local included, and one team's with team_id", async () => {
    const one = await teamWithPeople();
    const two = await teamWithPeople();
    await spend(2033, of(one.member), "06-10", "m", 10, 1);
    await spend(2033, of(two.member), "06-10", "m", 40, 4);
    await spend(2033, { principal: "local", teamId: null }, "06-11", "m", 5, 5);

    const all = await api<UsageAnswer>("GET", "/api/v1/usage?from=2033-06-01&to=2033-06-30&group_by=user");
    expect(new Set(expectStatus(all, 200).rows.map((r) => r.user_id))).toEqual(new Set([one.member.user.id, two.member.user.id, "local"]));
    const byDay = expectStatus(await api<UsageAnswer>("GET", "/api/v1/usage?from=2033-06-01&to=2033-06-30"), 200).rows;
    expect(sums(byDay)).toEqual([
      ["2033-06-10", 2, 50, 5],
      ["2033-06-11", 1, 5, 5],
    ]);
    const teamTwo = await api<UsageAnswer>("GET", `/api/v1/usage?from=2033-06-01&to=2033-06-30&group_by=user&team_id=${two.team.id}`);
    expect(sums(expectStatus(teamTwo, 200).rows)).toEqual([[two.member.user.id, 1, 40, 4]]);
    const missing = await api<ApiError>("GET", "/api/v1/usage?team_id=team_000000000000000000000000");
    expect(missing.status).toBe(404);
    // The single-user principal sees its own.
    expect(sums((await usage(LOCAL_TOKEN, "from=2033-06-01&to=2033-06-30")).rows)).toEqual([["2033-06-11", 1, 5, 5]]);
  });

  it("names each user's email in the rows per user, and none for local or a removed user", async () => {
    const { admin, member } = await teamWithPeople();
    await spend(2040, of(member), "02-01", "m", 10, 1);
    await spend(2040, of(admin), "02-01", "m", 20, 2);
    await spend(2040, { principal: "local", teamId: null }, "02-01", "m", 5, 5);
    const range = "from=2040-02-01&to=2040-02-28&group_by=user";
    const emails = async (token: string) => Object.fromEntries((await usage(token, range)).rows.map((r) => [r.user_id, r.email]));

    expect(await emails(admin.token)).toEqual({ [member.user.id]: member.user.email, [admin.user.id]: admin.user.email });
    expect((await emails(OPERATOR_TOKEN)).local).toBeNull();
    expectStatus(await api("DELETE", `/api/v1/users/${member.user.id}`, { token: admin.token }), 204);
    expect(await emails(admin.token)).toEqual({ [member.user.id]: null, [admin.user.id]: admin.user.email });
    // Other groupings carry no email.
    expect((await usage(admin.token, "from=2040-02-01&to=2040-02-28&group_by=model")).rows[0]).not.toHaveProperty("email");
  });

  it("refuses bad dates, reversed and overlong ranges and unknown groupings with invalid_argument", async () => {
    const { member } = await teamWithPeople();
    for (const [query, message] of [
      ["from=2031-02-30", /query\.from: expected an ISO day/],
      ["to=tomorrow", /query\.to: expected an ISO day/],
      ["from=2031-03-02&to=2031-03-01", /before query\.from/],
      ["from=2030-01-01&to=2031-06-01", /at most 366/],
      ["group_by=week", /query\.group_by/],
    ] as const) {
      const res = await api<ApiError>("GET", `/api/v1/usage?${query}`, { token: member.token });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: "invalid_argument" });
      expect(res.body.error.message).toMatch(message);
    }
    expect((await api("GET", "/api/v1/usage", { token: null })).status).toBe(401);
  });

  it("answers the current month so far by default", async () => {
    const { member } = await teamWithPeople();
    const today = new Date().toISOString().slice(0, 10);
    const answer = await usage(member.token, "");
    expect(answer).toEqual({ from: `${today.slice(0, 7)}-01`, to: today, group_by: "day", rows: [] });
  });
});
