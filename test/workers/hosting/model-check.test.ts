// The model check: one small request that reports latency and speed, or the
// provider's (redacted) error.
import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { chatText, createScenario, httpError } from "../../support/fake-provider.ts";
import { BASE } from "../../support/cursor-client.ts";

async function check(name: string, body: unknown, token = "test-token") {
  const res = await exports.default.fetch(`${BASE}/byok/v1/models/${name}/check`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe("model check", () => {
  it("measures time to first token and tokens per second of a configured model", async () => {
    const scenario = await createScenario([chatText(["O", "K"], { usage: { prompt_tokens: 5, completion_tokens: 2 } })]);
    const { status, json } = await check("fake-model", { prompt: `say OK ${scenario.marker}` });
    expect(status).toBe(200);
    expect(json).toMatchObject({ model: "fake-model", ok: true, outputTokens: 2, text: "OK" });
    expect(json.ttftMs).toBeTypeOf("number");
    expect(json.durationMs).toBeTypeOf("number");
  });

  it("shows the provider's error without the key", async () => {
    const scenario = await createScenario([httpError(401, "Incorrect API key provided: sk-test-never-logged-0123456789")]);
    const { json } = await check("fake-model", { prompt: `x ${scenario.marker}` });
    expect(json).toMatchObject({ ok: false, error: { kind: "authorization", status: 401 } });
    expect(JSON.stringify(json)).not.toContain("sk-test-never-logged");
  });

  it("answers an unknown model with not_found and refuses callers without the token", async () => {
    expect((await check("nope", {})).json).toMatchObject({ code: "not_found" });
    expect((await check("fake-model", {}, "wrong")).status).toBe(401);
  });
});
