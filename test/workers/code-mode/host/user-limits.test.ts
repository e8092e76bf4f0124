// Code mode within a hosted user's limits (docs/hosting.md#limits): each cell is a run
// while its isolate runs (requests_per_minute, max_concurrent_runs), a user holds at
// most 8 open sessions, and cells show in usage; the single user ("local") has no limits.
import { Code } from "@connectrpc/connect";
import { describe, expect, it, vi } from "vitest";
import { api, expectStatus, issueToken, LOCAL_TOKEN, type User } from "../../../support/admin-client.ts";
import { type CodeModeClient, codeModeClient, collect, failure, type Lease, openLease } from "../../../support/code-mode-host.ts";

const forever = "await new Promise(() => {})";

/** A member of a new team with the given limits, and a code-mode client with their token. */
async function hostedClient(limits: { requests_per_minute?: number; max_concurrent_runs?: number } = {}): Promise<CodeModeClient> {
  return (await hostedUser(limits)).client;
}

async function hostedUser(limits: { requests_per_minute?: number; max_concurrent_runs?: number } = {}) {
  const team = expectStatus(await api<{ id: string }>("POST", "/api/v1/teams", { body: { name: `team ${crypto.randomUUID()}` } }), 201);
  const body = { email: `cm-${crypto.randomUUID()}@example.com`, role: "member", ...limits };
  const user = expectStatus(await api<User>("POST", `/api/v1/teams/${team.id}/users`, { body }), 201);
  const token = (await issueToken(user.id)).token;
  return { user, token, client: codeModeClient({ token }) };
}

const run = (client: CodeModeClient, sessionId: string, executionId: string, source: string, yieldTimeMs = 10_000n) =>
  collect(client.execute({ sessionId, executionId, toolCallId: "c", source, yieldTimeMs }));

describe("code mode within a hosted user's limits", () => {
  it("holds a max_concurrent_runs slot while a cell runs, refuses another cell meanwhile, and frees it when the cell stops", async () => {
    const client = await hostedClient({ max_concurrent_runs: 1 });
    const lease = await openLease(client);
    const { sessionId } = lease;
    // Yields at once and goes on running, holding the slot.
    const first = await run(client, sessionId, "first", forever, 1n);
    expect(first[1]).toMatchObject({ case: "outcome", value: { outcome: { case: "yielded" } } });
    const refused = await failure(run(client, sessionId, "second", "1"));
    expect(refused.code).toBe(Code.ResourceExhausted);
    expect(refused.message).toContain("max_concurrent_runs limit of 1 reached");

    await client.terminate({ sessionId, cellId: "1" });
    // The slot is freed by a call to the user's limiter after the isolate stopped; bounded.
    await vi.waitFor(async () => expect((await run(client, sessionId, `after-${crypto.randomUUID()}`, "1"))[1]?.case).toBe("outcome"), {
      timeout: 5_000,
    });
    await client.closeSession({ sessionId });
  });

  it("counts each cell as a request against requests_per_minute", async () => {
    const client = await hostedClient({ requests_per_minute: 2 });
    const lease = await openLease(client);
    for (const id of ["a", "b"]) expect((await run(client, lease.sessionId, id, "1"))[1]?.case).toBe("outcome");
    const refused = await failure(run(client, lease.sessionId, "c", "1"));
    expect(refused.code).toBe(Code.ResourceExhausted);
    expect(refused.message).toContain("requests_per_minute limit of 2 reached");
    await client.closeSession({ sessionId: lease.sessionId });
  });

  it("lets a hosted user hold 8 open sessions, refuses a ninth, and opens one again once a session closes", async () => {
    const client = await hostedClient();
    const leases: Lease[] = [];
    for (let i = 0; i < 8; i++) leases.push(await openLease(client));
    const ninth = await failure(openLease(client));
    expect(ninth.code).toBe(Code.ResourceExhausted);
    expect(ninth.message).toContain("at most 8 code-mode sessions");

    const closed = leases.shift()!;
    await client.closeSession({ sessionId: closed.sessionId });
    expect(await closed.next("the closed lease's end")).toBe("end");
    // The slot is given back as the worker's forwarding of that lease ends; bounded.
    const again = await vi.waitFor(() => openLease(client), { timeout: 5_000 });
    for (const lease of [...leases, again]) await client.closeSession({ sessionId: lease.sessionId });
  });

  it("puts no limit on the single user's sessions", async () => {
    const client = codeModeClient({ token: LOCAL_TOKEN });
    const leases: Lease[] = [];
    for (let i = 0; i < 9; i++) leases.push(await openLease(client));
    for (const lease of leases) await client.closeSession({ sessionId: lease.sessionId });
  });

  it('counts a hosted user\'s cells and their wall time in usage, under the model "(code mode)"', async () => {
    const { token, client } = await hostedUser();
    const lease = await openLease(client);
    for (const id of ["one", "two"]) expect((await run(client, lease.sessionId, id, "1"))[1]?.case).toBe("outcome");
    await client.closeSession({ sessionId: lease.sessionId });
    type Usage = { rows: { model?: string; cells: number; cell_wall_ms: number; requests: number }[] };
    // Written after the cell's isolate stopped (waitUntil); bounded.
    const row = await vi.waitFor(
      async () => {
        const usage = expectStatus(await api<Usage>("GET", "/api/v1/usage?group_by=model", { token }), 200);
        const found = usage.rows.find((r) => r.model === "(code mode)");
        expect(found?.cells).toBe(2);
        return found!;
      },
      { timeout: 5_000 },
    );
    expect(row.cell_wall_ms).toBeGreaterThanOrEqual(0);
    expect(row.requests).toBe(0);
  });

  it("keeps a team's CPU per cell, 1 000 to 300 000 ms or null for the default, and refuses one out of range", async () => {
    const team = expectStatus(
      await api<{ id: string; code_mode_cpu_ms: number | null }>("POST", "/api/v1/teams", {
        body: { name: `team ${crypto.randomUUID()}`, code_mode_cpu_ms: 60_000 },
      }),
      201,
    );
    expect(team.code_mode_cpu_ms).toBe(60_000);
    const patched = await api<{ code_mode_cpu_ms: number | null }>("PATCH", `/api/v1/teams/${team.id}`, {
      body: { code_mode_cpu_ms: null },
    });
    expect(expectStatus(patched, 200).code_mode_cpu_ms).toBeNull();
    for (const bad of [999, 300_001, 1.5]) {
      const res = await api<{ error: { fields?: { path: string }[] } }>("PATCH", `/api/v1/teams/${team.id}`, {
        body: { code_mode_cpu_ms: bad },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.fields?.[0]?.path).toBe("body.code_mode_cpu_ms");
    }
  });
});
