// A run cut off by a restart of its conversation object is finished by the
// object's alarm (docs/architecture.md#run-recovery), with nobody visiting the
// conversation: recorded failed in the object's SQLite, its usage and provider
// calls written to D1 like any run's end.
import { describe, expect, it, vi } from "vitest";
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { conversationName } from "../../../src/core/object-names.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";

const HANG = { steps: [{ hang: true as const }] };

const stubOf = (conversationId: string) => env.CONVERSATION.getByName(conversationName("local", conversationId));

describe("run recovery", () => {
  it("finishes a run interrupted by a restart from the object's alarm, recording it failed with its usage in D1", async () => {
    const scenario = await createScenario([HANG]);
    const conversationId = crypto.randomUUID();
    const { requestId, reader } = await startTurn({ conversationId, text: `crash ${scenario.marker}` });
    await scenario.requests(1);
    await runInDurableObject(stubOf(conversationId), (_instance, state) => {
      state.abort("simulated crash");
    }).catch(() => undefined);
    expect((await reader.end()).error?.code).toBe("unavailable");

    // Nothing visits the conversation: only its alarm wakes the object (a new stub: the old one broke with it).
    const stub = stubOf(conversationId);
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const usage = () =>
      env.DB.prepare("SELECT principal, status FROM usage WHERE run_id LIKE ?")
        .bind(`${requestId}:%`)
        .first<{ principal: string; status: string }>();
    await vi.waitFor(async () => expect(await usage()).toEqual({ principal: "local", status: "failed" }), { timeout: 5_000 });
    const calls = await env.DB.prepare("SELECT status FROM provider_calls WHERE run_id LIKE ?").bind(`${requestId}:%`).all();
    expect(calls.results).toEqual([{ status: "cancelled" }]);

    const state = await runInDurableObject(stub, async (_instance, state) => ({
      runs: state.storage.sql.exec<{ status: string; failure_code: string }>("SELECT status, failure_code FROM runs").toArray(),
      alarm: await state.storage.getAlarm(),
    }));
    expect(state.runs).toEqual([{ status: "failed", failure_code: "aborted" }]);
    // The run is settled: the alarm is not set again.
    expect(state.alarm).toBeNull();
  });

  it("keeps the alarm set while a run is live, and clears it once the run has ended", async () => {
    const scenario = await createScenario([{ steps: [{ gate: "go" }, ...(chatText(["done"]).steps ?? [])] }]);
    const conversationId = crypto.randomUUID();
    const stub = stubOf(conversationId);
    const { reader } = await startTurn({ conversationId, text: `live ${scenario.marker}` });
    await scenario.reached("go");
    // A live run: the alarm finds it owned, settles nothing, and sets itself again.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const live = await runInDurableObject(stub, async (_instance, state) => ({
      alarm: await state.storage.getAlarm(),
      statuses: state.storage.sql.exec<{ status: string }>("SELECT status FROM runs").toArray(),
    }));
    expect(live.alarm).toEqual(expect.any(Number));
    expect(live.statuses).toEqual([{ status: "running" }]);

    await scenario.release("go");
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("done");
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm())).toBeNull();
  });
});
