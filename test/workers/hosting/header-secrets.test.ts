// Header values of credentials and models are secrets like keys (docs/hosting.md#header-values):
// stored encrypted, returned by name only, kept, replaced or removed by name, redacted from
// provider errors, and still sent to the provider. Rows stored in clear before keep working
// and are sealed by their next write or by the data-key rotation.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { env } from "cloudflare:workers";
import { api, expectStatus, type Member, teamWithPeople } from "../../support/admin-client.ts";
import { chatText, createScenario, httpError, type Scenario } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

const secret = (what: string) => `${what}-${crypto.randomUUID().replaceAll("-", "")}`;

/** Every column of the rows of these ids, as text. */
async function rowsText(ids: string[]): Promise<string> {
  const texts: string[] = [];
  for (const table of ["credentials", "models"]) {
    for (const id of ids) {
      const row = await env.DB.prepare(`SELECT * FROM ${table} WHERE id = ?`).bind(id).first();
      if (row) texts.push(JSON.stringify(row));
    }
  }
  return texts.join("\n");
}

/** The model test endpoint's answer, and the request the fake provider got. */
async function probe(token: string, modelId: string, scenario: Scenario) {
  const res = await api<{ ok: boolean; error?: { message: string } }>("POST", `/api/v1/models/${modelId}/test`, { token });
  const requests = await scenario.requests();
  return { body: expectStatus(res, 200), request: requests.at(-1) };
}

async function setup(member: Member, responses = [chatText(["OK"]), chatText(["OK"]), chatText(["OK"])]) {
  const scenario = await createScenario(responses);
  const values = { gateway: secret("gw"), model: secret("mdl"), other: secret("other") };
  const credential = await storeCredential(member.token, "user", secret("sk"), {
    headers: { "x-fake-scenario": scenario.id, "cf-aig-authorization": values.gateway },
  });
  const model = await storeModel(member.token, {
    credential_id: credential.id,
    scope: "user",
    headers: { "helicone-auth": values.model, "x-other": values.other },
  });
  return { scenario, values, credential, model };
}

/** Everything written to the console while a test runs (observation only: the calls still go through). */
let consoleLines: string[] = [];
beforeEach(() => {
  consoleLines = [];
  for (const method of ["log", "info", "warn", "error", "debug", "trace"] as const) {
    const original = console[method].bind(console);
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleLines.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : JSON.stringify(a))).join(" "));
      original(...args);
    });
  }
});
afterEach(() => vi.restoreAllMocks());

describe("header values are secrets", () => {
  it("returns header names only, stores no value in plain text, and still sends them to the provider", async () => {
    const { member, admin } = await teamWithPeople();
    const { scenario, values, credential, model } = await setup(member);
    const secrets = [values.gateway, values.model, values.other];

    expect(credential).toMatchObject({ header_names: ["x-fake-scenario", "cf-aig-authorization"] });
    expect(model).toMatchObject({ header_names: ["helicone-auth", "x-other"] });
    const responses = [
      JSON.stringify(credential),
      JSON.stringify(model),
      JSON.stringify((await api("GET", "/api/v1/credentials", { token: member.token })).body),
      JSON.stringify((await api("GET", "/api/v1/models", { token: member.token })).body),
      JSON.stringify((await api("GET", "/api/v1/credentials", { token: admin.token })).body),
      JSON.stringify((await api("PATCH", `/api/v1/models/${model.id}`, { token: member.token, body: { enabled: true } })).body),
    ];
    const stored = await rowsText([credential.id, model.id]);
    for (const value of secrets) {
      for (const text of responses) expect(text).not.toContain(value);
      expect(stored).not.toContain(value);
      expect(stored).not.toContain(btoa(value).slice(0, 20));
    }
    expect(stored).toContain("helicone-auth");

    const { body, request } = await probe(member.token, model.id, scenario);
    expect(body.ok).toBe(true);
    for (const value of secrets) expect(consoleLines.join("\n")).not.toContain(value);
    expect(request?.headers).toMatchObject({
      "cf-aig-authorization": values.gateway,
      "helicone-auth": values.model,
      "x-other": values.other,
    });
  });

  it("keeps, replaces and removes a model's headers by name without their values being shown", async () => {
    const { member } = await teamWithPeople();
    const { scenario, values, model } = await setup(member);
    const replaced = secret("new");
    const patched = expectStatus(
      await api<{ header_names: string[] }>("PATCH", `/api/v1/models/${model.id}`, {
        token: member.token,
        body: { headers: { "helicone-auth": replaced, "x-other": null, "x-added": "plain" } },
      }),
      200,
    );
    expect(patched.header_names).toEqual(["helicone-auth", "x-added"]);
    expect(JSON.stringify(patched)).not.toContain(replaced);
    const { request } = await probe(member.token, model.id, scenario);
    expect(request?.headers).toMatchObject({ "cf-aig-authorization": values.gateway, "helicone-auth": replaced, "x-added": "plain" });
    expect(request?.headers).not.toHaveProperty("x-other");

    const cleared = expectStatus(
      await api<{ header_names: string[] }>("PATCH", `/api/v1/models/${model.id}`, { token: member.token, body: { headers: null } }),
      200,
    );
    expect(cleared.header_names).toEqual([]);
    const { request: after } = await probe(member.token, model.id, scenario);
    expect(after?.headers).not.toHaveProperty("helicone-auth");
    expect(after?.headers).toMatchObject({ "cf-aig-authorization": values.gateway });
  });

  it("redacts every header value from a provider error, as it does the key", async () => {
    const { member } = await teamWithPeople();
    const values = { gateway: secret("gw"), plain: secret("xteam") };
    const scenario = await createScenario([
      httpError(400, `bad header cf-aig-authorization=${values.gateway}, x-team-name=${values.plain.slice(0, 12)}`),
    ]);
    const credential = await storeCredential(member.token, "user", secret("sk"), {
      headers: { "x-fake-scenario": scenario.id, "x-team-name": values.plain },
    });
    const model = await storeModel(member.token, {
      credential_id: credential.id,
      scope: "user",
      headers: { "cf-aig-authorization": values.gateway },
    });
    const { body } = await probe(member.token, model.id, scenario);
    expect(body.ok).toBe(false);
    expect(body.error?.message).toMatch(/bad header/);
    for (const value of Object.values(values)) expect(consoleLines.join("\n")).not.toContain(value.slice(0, 12));
    // The name says nothing of a secret; the value is one all the same.
    expect(JSON.stringify(body)).not.toContain(values.plain.slice(0, 12));
    expect(JSON.stringify(body)).not.toContain(values.gateway.slice(0, 12));
  });

  it("keeps using headers stored in clear before sealing, and seals them on the next write or the data-key rotation", async () => {
    const { team, admin, member } = await teamWithPeople();
    const scenario = await createScenario([chatText(["OK"]), chatText(["OK"]), chatText(["OK"])]);
    // A team credential: a personal one is sealed to its owner, which the data-key rotation leaves alone.
    const credential = await storeCredential(admin.token, "team", secret("sk"));
    const model = await storeModel(member.token, { credential_id: credential.id, scope: "user" });
    const [credValue, modelValue] = [secret("legacy-cred"), secret("legacy-model")];
    // As a row written before header values were sealed.
    await env.DB.prepare("UPDATE credentials SET headers_json = ? WHERE id = ?")
      .bind(JSON.stringify({ "x-fake-scenario": scenario.id, "x-legacy": credValue }), credential.id)
      .run();
    await env.DB.prepare("UPDATE models SET headers_json = ? WHERE id = ?")
      .bind(JSON.stringify({ "x-legacy-model": modelValue }), model.id)
      .run();

    const listed = expectStatus(
      await api<{ credentials: { id: string; header_names: string[] }[] }>("GET", "/api/v1/credentials", { token: member.token }),
      200,
    );
    expect(listed.credentials.find((c) => c.id === credential.id)?.header_names).toEqual(["x-fake-scenario", "x-legacy"]);
    expect(JSON.stringify(listed)).not.toContain(credValue);
    const before = await probe(member.token, model.id, scenario);
    expect(before.request?.headers).toMatchObject({ "x-legacy": credValue, "x-legacy-model": modelValue });

    // The model's next write that touches its headers seals them.
    expectStatus(await api("PATCH", `/api/v1/models/${model.id}`, { token: member.token, body: { headers: { "x-more": "1" } } }), 200);
    expect(await rowsText([model.id])).not.toContain(modelValue);
    // The rotation seals the rest.
    const rotation = expectStatus(await api<{ header_sets: number }>("POST", `/api/v1/admin/rotate-data-keys?team_id=${team.id}`), 200);
    expect(rotation.header_sets).toBe(2);
    const stored = await rowsText([credential.id, model.id]);
    expect(stored).not.toContain(credValue);
    expect(stored).not.toContain(modelValue);
    const after = await probe(member.token, model.id, scenario);
    expect(after.request?.headers).toMatchObject({ "x-legacy": credValue, "x-legacy-model": modelValue, "x-more": "1" });
  });
});
