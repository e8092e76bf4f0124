// Nothing in a model's configuration turns accounting off (docs/hosting.md#limits): keys of
// extra_body and headers that control streaming, usage reporting, output size, sampling count
// or the model are refused by name on POST and PATCH /api/v1/models, on credentials' headers
// and in BYOK_MODELS entries; a stored row from before the rule still cannot use them.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { modelCatalogFromEnv } from "../../../src/hosting/config/byok-models.ts";
import { api, type ApiError, type ApiResponse, expectStatus, member, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { type StoredModel, storeCredential, storeModel } from "../../support/stored-models.ts";

function expectRefused(res: ApiResponse<unknown>, path: string) {
  const { error } = res.body as ApiError & { error: { fields?: { path: string; message: string }[] } };
  expect({ status: res.status, code: error.code, fields: error.fields?.map((f) => f.path) }).toEqual({
    status: 400,
    code: "invalid_argument",
    fields: [path],
  });
  expect(error.fields?.[0]?.message).toContain(`"${path.split(".").at(-1)}"`);
}

const REFUSED_BODY = [
  ["stream", false],
  ["stream_options", { include_usage: false }],
  ["max_tokens", 100_000],
  ["max_completion_tokens", 100_000],
  ["max_output_tokens", 100_000],
  ["n", 8],
  ["model", "another-model"],
  ["background", true],
  ["generationConfig", { candidateCount: 4 }],
] as const;

describe("usage-controlling keys in a model's configuration", () => {
  it("refuses each in extra_body on create and on patch, naming it, and changes nothing", async () => {
    const { member: who } = await teamWithPeople();
    const credential = await storeCredential(who.token, "user", `sk-usage-keys-${crypto.randomUUID()}`);
    const model = await storeModel(who.token, { credential_id: credential.id, scope: "user", extra_body: { temperature: 0 } });
    for (const [key, value] of REFUSED_BODY) {
      const body = {
        name: `m-${crypto.randomUUID()}`,
        credential_id: credential.id,
        model: "fake-1",
        scope: "user",
        extra_body: { [key]: value },
      };
      expectRefused(await api("POST", "/api/v1/models", { token: who.token, body }), `body.extra_body.${key}`);
      const patched = await api("PATCH", `/api/v1/models/${model.id}`, {
        token: who.token,
        body: { extra_body: { top_p: 1, [key]: value } },
      });
      expectRefused(patched, `body.extra_body.${key}`);
    }
    const models = expectStatus(await api<{ models: StoredModel[] }>("GET", "/api/v1/models", { token: who.token }), 200).models;
    expect(models.find((m) => m.id === model.id)).toMatchObject({ extra_body: { temperature: 0 } });
  });

  it("refuses framing and usage headers on models and credentials, naming them", async () => {
    const { member: who } = await teamWithPeople();
    const credential = await storeCredential(who.token, "user", `sk-usage-keys-${crypto.randomUUID()}`);
    for (const header of ["Accept", "content-type", "x-max-tokens", "stream"]) {
      const lower = header.toLowerCase();
      const body = {
        name: `m-${crypto.randomUUID()}`,
        credential_id: credential.id,
        model: "fake-1",
        scope: "user",
        headers: { [header]: "1" },
      };
      expectRefused(await api("POST", "/api/v1/models", { token: who.token, body }), `body.headers.${lower}`);
      const cred = {
        name: `c-${crypto.randomUUID()}`,
        scope: "user",
        provider: "openai-chat",
        base_url: "https://api.example.com/v1",
        api_key: "sk-x-0123456789",
        headers: { [header]: "1" },
      };
      expectRefused(await api("POST", "/api/v1/credentials", { token: who.token, body: cred }), `body.headers.${lower}`);
    }
  });

  it("leaves out a BYOK_MODELS entry that sets one, saying which, and keeps the others", () => {
    const entry = (name: string, extra: Record<string, unknown>) => ({
      name,
      provider: "openai-chat",
      base_url: "https://api.example.com/v1",
      api_key: "sk-byok-usage-keys-0123456789",
      model: "gpt-x",
      ...extra,
    });
    const catalog = modelCatalogFromEnv({
      BYOK_MODELS: JSON.stringify([
        entry("no-usage", { extra_body: { stream_options: { include_usage: false } } }),
        entry("bigger", { extra_body: { max_completion_tokens: 1_000_000 } }),
        entry("json-answer", { headers: { Accept: "application/json" } }),
        entry("fine", { extra_body: { temperature: 0 }, headers: { "x-team": "a" } }),
      ]),
      BYOK_ALLOW_PRIVATE_UPSTREAMS: "false",
    });
    expect(catalog.models.map((m) => m.name)).toEqual(["fine"]);
    expect(catalog.problems.get("no-usage")).toMatch(/extra_body\.stream_options: "stream_options" cannot be set/);
    expect(catalog.problems.get("bigger")).toMatch(/extra_body\.max_completion_tokens/);
    expect(catalog.problems.get("json-answer")).toMatch(/headers\.accept/);
    expect(JSON.stringify([...catalog.problems.values()])).not.toMatch(/sk-/);
  });

  it("still sends its own usage settings for a stored model whose row predates the rule", async () => {
    const { team } = await teamWithPeople();
    const who = await member(team.id, "member");
    const credential = await storeCredential(who.token, "user", `sk-usage-keys-${crypto.randomUUID()}`);
    const model = await storeModel(who.token, { credential_id: credential.id, scope: "user" });
    const old = { stream_options: { include_usage: false }, max_completion_tokens: 1_000_000, n: 3, temperature: 0 };
    await env.DB.prepare("UPDATE models SET extra_body_json = ? WHERE id = ?").bind(JSON.stringify(old), model.id).run();

    const scenario = await createScenario([chatText(["counted"])]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `go ${scenario.marker}`, model: model.name },
      { headers: { authorization: `Bearer ${who.token}` } },
    );
    expect(await reader.end()).toEqual({});
    const [sent] = await scenario.requests(1);
    const body = JSON.parse(sent!.body) as Record<string, unknown>;
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, temperature: 0 });
    expect(body).not.toHaveProperty("max_completion_tokens");
    expect(body).not.toHaveProperty("n");
  });
});
