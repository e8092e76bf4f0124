// Structured logs (docs/telemetry.md#logs): one JSON line per request and one per run's end,
// with ids, the model, status, timings and token counts, and never a key, a token, the prompt
// or the answer; a traced run's line names its trace.
import { afterEach, describe, expect, it, vi } from "vitest";
import { traceIdOf } from "../../../src/telemetry/run-trace.ts";
import { api, expectStatus, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { createSink } from "../../support/otlp-receiver.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

afterEach(() => vi.restoreAllMocks());

function jsonLines(spy: { mock: { calls: unknown[][] } }): Record<string, unknown>[] {
  return spy.mock.calls.flatMap(([line]) => {
    if (typeof line !== "string" || !line.startsWith('{"message":')) return [];
    return [JSON.parse(line) as Record<string, unknown>];
  });
}

describe("structured logs", () => {
  it("writes one line per request and one per run end, with ids, timings and counts and no secret or text", async () => {
    const { team, admin, member } = await teamWithPeople();
    const sink = await createSink();
    expectStatus(await api("PATCH", `/api/v1/teams/${team.id}`, { token: admin.token, body: { otlp: { endpoint: sink.endpoint } } }), 200);
    const apiKey = `sk-logged-never-${crypto.randomUUID()}`;
    const credential = await storeCredential(member.token, "user", apiKey);
    const model = await storeModel(member.token, { credential_id: credential.id, scope: "user" });
    const spy = vi.spyOn(console, "log");
    const scenario = await createScenario([chatText(["a private answer"])]);
    const { requestId, reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `a private prompt ${scenario.marker}`, model: model.name },
      { headers: { authorization: `Bearer ${member.token}` } },
    );
    expect(await reader.end(20_000)).toEqual({});
    await vi.waitFor(() => expect(jsonLines(spy).some((l) => l.message === "run" && l.request_id === requestId)).toBe(true), {
      timeout: 5_000,
    });
    const lines = jsonLines(spy);
    const run = lines.find((l) => l.message === "run" && l.request_id === requestId)!;
    expect(run).toMatchObject({
      principal_id: member.user.id,
      team_id: team.id,
      model: model.name,
      status: "completed",
      provider_calls: 1,
      trace_id: traceIdOf(requestId),
    });
    expect(run.input_tokens).toBeGreaterThan(0);
    expect(run.duration_ms).toBeGreaterThanOrEqual(0);
    const requests = lines.filter((l) => l.message === "request" && l.principal_id === member.user.id);
    expect(requests.map((l) => l.path)).toEqual(
      expect.arrayContaining(["/agent.v1.AgentService/RunSSE", "/aiserver.v1.BidiService/BidiAppend"]),
    );
    for (const line of requests) {
      expect(line.status).toBeTypeOf("number");
      expect(line.duration_ms).toBeTypeOf("number");
    }
    const text = JSON.stringify(lines);
    for (const secret of [apiKey, member.token, "a private prompt", "a private answer"]) expect(text).not.toContain(secret);
  });
});
