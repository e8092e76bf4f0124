// Names people can trust (docs/hosting.md#names): team, credential, model and token names are
// stored in Unicode NFC, counted in code points, refused with control, bidi or zero-width
// characters, unique after normalisation, and usable in every route that takes one.
import { describe, expect, it } from "vitest";
import { exports } from "cloudflare:workers";
import { api, type ApiError, createTeam, expectStatus, member } from "../../support/admin-client.ts";
import { BASE } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

const untrusted = {
  NUL: "a\u0000b",
  newline: "a\nb",
  "right-to-left override": "invoice\u202Etxt.exe",
  "zero-width space": "ad\u200Bmin",
  "byte order mark": "na\uFEFFme",
};

describe("names", () => {
  for (const [what, name] of Object.entries(untrusted)) {
    it(`refuses a team name with a ${what}, before anything is stored`, async () => {
      const res = await api<ApiError>("POST", "/api/v1/teams", { body: { name } });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_argument");
      expect(res.body.error.fields?.[0]).toMatchObject({
        path: "body.name",
        message: expect.stringMatching(/control, bidi or zero-width/),
      });
    });
  }

  it("stores a name in NFC, so its NFD spelling is the same name", async () => {
    const base = `Café ${crypto.randomUUID()}`;
    const created = expectStatus(await api<{ name: string }>("POST", "/api/v1/teams", { body: { name: base.normalize("NFD") } }), 201);
    expect(created.name).toBe(base.normalize("NFC"));
    const again = await api<ApiError>("POST", "/api/v1/teams", { body: { name: base.normalize("NFC") } });
    expect(again.status).toBe(409);
  });

  it("counts a name's length in characters, not UTF-16 units", async () => {
    const emoji = "🦊".repeat(199);
    const fits = `${emoji}${crypto.randomUUID().slice(0, 1)}`;
    expectStatus(await api("POST", "/api/v1/teams", { body: { name: fits } }), 201);
    const over = await api<ApiError>("POST", "/api/v1/teams", { body: { name: `${fits}x` } });
    expect(over.status).toBe(400);
  });

  it("refuses the same characters in credential, model and token names", async () => {
    const team = await createTeam();
    const { user, token } = await member(team.id, "member");
    const credential = await api<ApiError>("POST", "/api/v1/credentials", {
      token,
      body: { name: untrusted["right-to-left override"], provider: "openai-chat", base_url: "https://api.example.com/v1", scope: "user" },
    });
    expect(credential.status).toBe(400);
    const stored = await storeCredential(token, "user", "sk-names-0123456789");
    const model = await api<ApiError>("POST", "/api/v1/models", {
      token,
      body: { name: untrusted["zero-width space"], credential_id: stored.id, model: "fake-hosted", scope: "user" },
    });
    expect(model.status).toBe(400);
    const issued = await api<ApiError>("POST", `/api/v1/users/${user.id}/tokens`, { token, body: { name: untrusted.newline } });
    expect(issued.status).toBe(400);
  });

  it("reaches a model whose name has spaces, slashes and accents through the check route, encoded", async () => {
    const team = await createTeam();
    const { token } = await member(team.id, "member");
    const credential = await storeCredential(token, "user", "sk-names-0123456789");
    const name = `Équipe / gpt 5 ${crypto.randomUUID().slice(0, 4)}`;
    await storeModel(token, { name, credential_id: credential.id, scope: "user" });
    const scenario = await createScenario([chatText(["OK"])]);
    const res = await exports.default.fetch(`${BASE}/byok/v1/models/${encodeURIComponent(name)}/check`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: `say OK ${scenario.marker}` }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ model: name, ok: true });
  });
});
