// GET /api/v1/teams/{team_id}/budget (docs/hosting.md#runs-api): the team's budget
// object's own figures for the current UTC month, for the operator and the team's
// admins and members, and not found for anyone else.
import { describe, expect, it } from "vitest";
import {
  api,
  type ApiError,
  expectStatus,
  LOCAL_TOKEN,
  type Member,
  member,
  OPERATOR_TOKEN,
  type Team,
} from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

interface Budget {
  team_id: string;
  month: string;
  monthly_token_budget: number | null;
  used_tokens: number;
  reserved_tokens: number;
  remaining_tokens: number | null;
}

async function teamWithBudget(budget: number | null): Promise<Team> {
  const body = { name: `team ${crypto.randomUUID()}`, monthly_token_budget: budget };
  return expectStatus(await api<Team>("POST", "/api/v1/teams", { body }), 201);
}

async function budgetOf(teamId: string, token: string) {
  return expectStatus(await api<Budget>("GET", `/api/v1/teams/${teamId}/budget`, { token }), 200);
}

/** One real turn of `who` on their own model; the provider reports 30 + 5 tokens. */
async function turn(who: Member) {
  const credential = await storeCredential(who.token, "user", `sk-budget-${crypto.randomUUID()}`);
  const model = (await storeModel(who.token, { credential_id: credential.id, scope: "user" })).name;
  const scenario = await createScenario([chatText(["spent"], { usage: { prompt_tokens: 30, completion_tokens: 5, total_tokens: 35 } })]);
  const { reader } = await startTurn(
    { conversationId: crypto.randomUUID(), text: `spend ${scenario.marker}`, model },
    { headers: { authorization: `Bearer ${who.token}` } },
  );
  expect(await reader.end()).toEqual({});
}

describe("team budget API", () => {
  it("the budget shows what the month has used", async () => {
    const team = await teamWithBudget(1_000);
    const admin = await member(team.id, "admin");
    const user = await member(team.id, "member");
    const month = new Date().toISOString().slice(0, 7);
    expect(await budgetOf(team.id, admin.token)).toEqual({
      team_id: team.id,
      month,
      monthly_token_budget: 1_000,
      used_tokens: 0,
      reserved_tokens: 0,
      remaining_tokens: 1_000,
    });

    await turn(user);
    const after = { team_id: team.id, month, monthly_token_budget: 1_000, used_tokens: 35, reserved_tokens: 0, remaining_tokens: 965 };
    expect(await budgetOf(team.id, user.token)).toEqual(after);
    expect(await budgetOf(team.id, OPERATOR_TOKEN)).toEqual(after);
  });

  it("shows the month's usage and no remainder for a team without a budget", async () => {
    const team = await teamWithBudget(null);
    const user = await member(team.id, "member");
    await turn(user);
    expect(await budgetOf(team.id, user.token)).toMatchObject({ monthly_token_budget: null, used_tokens: 35, remaining_tokens: null });
  });

  it("is not found for another team's people, local and a team that does not exist", async () => {
    const team = await teamWithBudget(100);
    const other = await member((await teamWithBudget(100)).id, "admin");
    for (const [path, token] of [
      [`/api/v1/teams/${team.id}/budget`, other.token],
      [`/api/v1/teams/${team.id}/budget`, LOCAL_TOKEN],
      ["/api/v1/teams/team_000000000000000000000000/budget", OPERATOR_TOKEN],
    ] as const) {
      const res = await api<ApiError>("GET", path, { token });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 404, code: "not_found" });
    }
  });
});
