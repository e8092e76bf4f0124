// GET /api/v1/overview (docs/dashboard.md#overview): a team's day at a glance, in the caller's
// scope; who spent most only for admins and the operator.
import { describe, expect, it, vi } from "vitest";
import { api, expectStatus, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario, httpError } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

interface Overview {
  today: { runs: number; failed: number; error_rate: number };
  ttft_by_model: { model: string; calls: number; p50_ms: number; p95_ms: number }[];
  slowest_calls: { run_id: string; model: string }[];
  failing_calls: { run_id: string; model: string; http_status: number | null }[];
  top_users: { user_id: string; requests: number }[] | null;
}

describe("the overview", () => {
  it("shows today's runs and error rate, time to first token per model, the slowest and failing calls, and top users to admins only", async () => {
    const { team, admin, member } = await teamWithPeople();
    const credential = await storeCredential(member.token, "user", `sk-overview-${crypto.randomUUID()}`);
    const model = await storeModel(member.token, { credential_id: credential.id, scope: "user" });
    const scenario = await createScenario([chatText(["fine"]), httpError(400, "refused")]);
    for (const text of ["first", "second"]) {
      const { reader } = await startTurn(
        { conversationId: crypto.randomUUID(), text: `${text} ${scenario.marker}`, model: model.name },
        { headers: { authorization: `Bearer ${member.token}` } },
      );
      await reader.end(20_000);
    }
    const overview = async (token: string) => expectStatus(await api<Overview>("GET", "/api/v1/overview", { token }), 200);
    await vi.waitFor(async () => expect((await overview(admin.token)).today.runs).toBe(2), { timeout: 5_000 });
    const seen = await overview(admin.token);
    expect(seen.today).toEqual({ runs: 2, failed: 1, error_rate: 0.5 });
    expect(seen.ttft_by_model).toEqual([expect.objectContaining({ model: model.name, calls: 1 })]);
    expect(seen.slowest_calls.map((c) => c.model)).toContain(model.name);
    expect(seen.failing_calls).toEqual([expect.objectContaining({ model: model.name, http_status: 400 })]);
    expect(seen.top_users).toEqual([expect.objectContaining({ user_id: member.user.id, requests: 2 })]);
    // A member sees their own figures, not who spent what.
    const own = await overview(member.token);
    expect(own.today.runs).toBe(2);
    expect(own.top_users).toBeNull();
    // The operator sees the team's when naming it.
    const operator = expectStatus(await api<Overview>("GET", `/api/v1/overview?team_id=${team.id}`), 200);
    expect(operator.today.runs).toBe(2);
  });
});
