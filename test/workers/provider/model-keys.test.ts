// Several keys behind one model (docs/providers.md#keys-behind-one-model): calls spread by
// weight over the model's credentials, a key that answered 429 skipped until its Retry-After
// has passed, a key its provider refused marked broken (and shown so) until it is rotated.
// Each credential sends `x-fake-scenario`, so the fake provider serves every key from its own script.
import { afterEach, describe, expect, it, vi } from "vitest";
import { BROKEN_RETRY_MS } from "../../../src/hosting/keys/key-pool.ts";
import { setLimitsClock } from "../../../src/hosting/limits/clock.ts";
import { api, expectStatus, type Member, teamWithPeople } from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario, httpError, type Scenario, type ScriptedResponse } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

afterEach(() => setLimitsClock(Date.now));

interface Key {
  credentialId: string;
  scenario: Scenario;
}

/** A team credential whose every call the fake provider answers from `responses`, in order. */
async function keyServing(admin: Member, responses: ScriptedResponse[]): Promise<Key> {
  const scenario = await createScenario(responses);
  const credential = await storeCredential(admin.token, "team", `sk-key-${crypto.randomUUID()}`, {
    headers: { "x-fake-scenario": scenario.id },
  });
  return { credentialId: credential.id, scenario };
}

const answers = (count: number, text: string) => Array.from({ length: count }, () => chatText([text]));

async function turnOn(person: Member, model: string) {
  const { reader } = await startTurn(
    { conversationId: crypto.randomUUID(), text: "which key answers?", model },
    { headers: { authorization: `Bearer ${person.token}` } },
  );
  const end = await reader.end(20_000);
  return { text: reader.text(), end };
}

/** How many calls each key's script has served so far. */
async function served(keys: Key[]): Promise<number[]> {
  return Promise.all(keys.map(async (k) => (await k.scenario.requests()).length));
}

interface CredentialJson {
  id: string;
  status: string;
  broken_at: string | null;
  broken_reason: string | null;
}

async function credentialStatus(person: Member, id: string): Promise<CredentialJson> {
  const { credentials } = expectStatus(
    await api<{ credentials: CredentialJson[] }>("GET", "/api/v1/credentials", { token: person.token }),
    200,
  );
  return credentials.find((c) => c.id === id)!;
}

describe("keys behind one model", () => {
  it("spreads a model's calls over its three keys by weight, each within one call of its share", async () => {
    const { admin, member } = await teamWithPeople();
    const [own, second, third] = await Promise.all([1, 2, 3].map((n) => keyServing(admin, answers(30, `key ${n}`))));
    const model = await storeModel(admin.token, {
      credential_id: own!.credentialId,
      scope: "team",
      keys: [
        { credential_id: second!.credentialId, weight: 2 },
        { credential_id: third!.credentialId, weight: 3 },
      ],
    });
    expect(model.keys).toEqual([
      { credential_id: second!.credentialId, weight: 2 },
      { credential_id: third!.credentialId, weight: 3 },
    ]);
    for (let i = 0; i < 30; i++) expect((await turnOn(member, model.name)).end).toEqual({});
    // Weights 1 : 2 : 3 over 30 calls: 5, 10 and 15.
    const counts = await served([own!, second!, third!]);
    expect(counts.reduce((a, b) => a + b)).toBe(30);
    for (const [i, share] of [5, 10, 15].entries()) expect(Math.abs(counts[i]! - share), `key ${i + 1}: ${counts}`).toBeLessThanOrEqual(1);
  });

  it("moves a call to another key at once after a 429, and gives the cooled key no call until its Retry-After has passed", async () => {
    let now = Date.UTC(2031, 6, 1, 9, 0, 0);
    setLimitsClock(() => now);
    const { admin, member } = await teamWithPeople();
    const steady = await keyServing(admin, answers(20, "steady"));
    const limited = await keyServing(admin, [httpError(429, "slow down", { "retry-after": "30" }), ...answers(5, "back again")]);
    const model = await storeModel(admin.token, {
      credential_id: steady.credentialId,
      scope: "team",
      keys: [{ credential_id: limited.credentialId }],
    });

    // Equal weights alternate, so within two turns the limited key is tried, answers 429, and the call moves on.
    for (let i = 0; i < 2; i++) {
      const turn = await turnOn(member, model.name);
      expect(turn.end).toEqual({});
      expect(turn.text).toBe("steady");
    }
    expect(await served([steady, limited])).toEqual([2, 1]);
    // Still cooling 29 s later: every call goes to the other key.
    now += 29_000;
    for (let i = 0; i < 4; i++) expect((await turnOn(member, model.name)).text).toBe("steady");
    expect(await served([steady, limited])).toEqual([6, 1]);
    // Its time has passed: it takes calls again.
    now += 2_000;
    const texts = [];
    for (let i = 0; i < 2; i++) texts.push((await turnOn(member, model.name)).text);
    expect(texts.sort()).toEqual(["back again", "steady"]);

    // The Runs API names the credential of each attempt.
    await vi.waitFor(
      async () => {
        const { runs } = expectStatus(
          await api<{ runs: { provider_calls: { credential_id: string | null; status: string }[] }[] }>("GET", "/api/v1/runs?limit=50", {
            token: member.token,
          }),
          200,
        );
        const attempts = runs.flatMap((r) => r.provider_calls);
        expect(attempts).toContainEqual(expect.objectContaining({ credential_id: limited.credentialId, status: "failed" }));
        expect(attempts.filter((a) => a.status === "completed").every((a) => a.credential_id !== null)).toBe(true);
      },
      { timeout: 5_000 },
    );
  });

  it("marks a key its provider refuses as broken, skips it, shows it so, and takes it back once rotated", async () => {
    const { admin, member } = await teamWithPeople();
    const good = await keyServing(admin, answers(10, "good key"));
    const refused = await keyServing(admin, [httpError(401, "invalid api key"), ...answers(3, "rotated key")]);
    const model = await storeModel(admin.token, {
      credential_id: good.credentialId,
      scope: "team",
      keys: [{ credential_id: refused.credentialId }],
    });

    for (let i = 0; i < 2; i++) expect((await turnOn(member, model.name)).text).toBe("good key");
    expect(await served([good, refused])).toEqual([2, 1]);
    const broken = await credentialStatus(admin, refused.credentialId);
    expect(broken).toMatchObject({ status: "broken", broken_reason: "the provider refused the key (HTTP 401)" });
    expect(Date.parse(broken.broken_at!)).toBeGreaterThan(0);
    expect((await credentialStatus(admin, good.credentialId)).status).toBe("ok");
    for (let i = 0; i < 3; i++) expect((await turnOn(member, model.name)).text).toBe("good key");
    expect(await served([good, refused])).toEqual([5, 1]);

    // A rotated key is a new key: no longer broken, and back in the spread (within the catalogue's 5 s in other isolates).
    expectStatus(
      await api("POST", `/api/v1/credentials/${refused.credentialId}/rotate`, { token: admin.token, body: { api_key: "sk-rotated-9999" } }),
      200,
    );
    expect(await credentialStatus(admin, refused.credentialId)).toMatchObject({ status: "ok", broken_at: null });
    const texts = [];
    for (let i = 0; i < 2; i++) texts.push((await turnOn(member, model.name)).text);
    expect(texts).toContain("rotated key");
  });

  it("tries a broken key again ten minutes later, and clears its mark once it answers", async () => {
    let now = Date.UTC(2031, 7, 1, 9, 0, 0);
    setLimitsClock(() => now);
    const { admin, member } = await teamWithPeople();
    const good = await keyServing(admin, answers(10, "good key"));
    const flaky = await keyServing(admin, [httpError(401, "invalid api key"), ...answers(3, "mended")]);
    const model = await storeModel(admin.token, {
      credential_id: good.credentialId,
      scope: "team",
      keys: [{ credential_id: flaky.credentialId }],
    });
    for (let i = 0; i < 2; i++) expect((await turnOn(member, model.name)).text).toBe("good key");
    expect((await credentialStatus(admin, flaky.credentialId)).status).toBe("broken");
    now += 9 * 60_000;
    expect((await turnOn(member, model.name)).text).toBe("good key");
    now += BROKEN_RETRY_MS;
    expect((await turnOn(member, model.name)).text).toBe("mended");
    await vi.waitFor(async () => expect((await credentialStatus(admin, flaky.credentialId)).status).toBe("ok"), { timeout: 5_000 });
    const texts = [];
    for (let i = 0; i < 2; i++) texts.push((await turnOn(member, model.name)).text);
    expect(texts.sort()).toEqual(["good key", "mended"]);
  });

  it("ends the turn with a clear error once every key of the model was refused", async () => {
    const { admin, member } = await teamWithPeople();
    const first = await keyServing(admin, [httpError(401, "invalid api key")]);
    const second = await keyServing(admin, [httpError(403, "forbidden")]);
    const model = await storeModel(admin.token, {
      credential_id: first.credentialId,
      scope: "team",
      keys: [{ credential_id: second.credentialId }],
    });
    const turn = await turnOn(member, model.name);
    expect(turn.end.error?.code).toBe("unavailable");
    expect(await served([first, second])).toEqual([1, 1]);
    const again = await turnOn(member, model.name);
    expect(again.end.error?.message).toMatch(/every key of model .* was refused by its provider/);
    expect(await served([first, second])).toEqual([1, 1]);
  });

  it("marks the one credential of a model without keys broken when refused, its calls going on as before", async () => {
    const { admin, member } = await teamWithPeople();
    const only = await keyServing(admin, [httpError(401, "invalid api key"), chatText(["still tried"])]);
    const model = await storeModel(admin.token, { credential_id: only.credentialId, scope: "team" });
    expect((await turnOn(member, model.name)).end.error?.code).toBe("unavailable");
    expect((await credentialStatus(admin, only.credentialId)).status).toBe("broken");
    expect((await turnOn(member, model.name)).text).toBe("still tried");
  });
});

describe("keys of a stored model, through the admin API", () => {
  it("refuses a key of another provider kind, of another team, a personal one on a team model, or one named twice", async () => {
    const { admin, member } = await teamWithPeople();
    const other = await teamWithPeople();
    const own = await storeCredential(admin.token, "team", `sk-a-${crypto.randomUUID()}`);
    const anthropic = await storeCredential(admin.token, "team", `sk-b-${crypto.randomUUID()}`, { provider: "anthropic" });
    const elsewhere = await storeCredential(other.admin.token, "team", `sk-c-${crypto.randomUUID()}`);
    const personal = await storeCredential(member.token, "user", `sk-d-${crypto.randomUUID()}`);
    const spare = await storeCredential(admin.token, "team", `sk-e-${crypto.randomUUID()}`);
    const model = await storeModel(admin.token, { credential_id: own.id, scope: "team" });
    for (const [keys, path] of [
      [[{ credential_id: anthropic.id }], "body.keys.0.credential_id"],
      [[{ credential_id: spare.id }, { credential_id: elsewhere.id }], "body.keys.1.credential_id"],
      [[{ credential_id: personal.id }], "body.keys.0.credential_id"],
      [[{ credential_id: "cred_000000000000000000000000" }], "body.keys.0.credential_id"],
      [[{ credential_id: spare.id }, { credential_id: spare.id }], "body.keys"],
    ] as const) {
      const res = await api<{ error: { code: string; fields: { path: string }[] } }>("PATCH", `/api/v1/models/${model.id}`, {
        token: admin.token,
        body: { keys },
      });
      expect(res.status, JSON.stringify(keys)).toBe(400);
      expect(res.body.error.code).toBe("invalid_argument");
      expect(res.body.error.fields[0]?.path).toBe(path);
    }
    // A member's own model may spread over their own key and the team's.
    const mine = await storeModel(member.token, {
      credential_id: personal.id,
      scope: "user",
      keys: [{ credential_id: spare.id, weight: 4 }],
    });
    expect(mine.keys).toEqual([{ credential_id: spare.id, weight: 4 }]);
    // Moving a model with keys to a credential of another kind is refused; null clears its keys.
    const spreadModel = await storeModel(admin.token, { credential_id: own.id, scope: "team", keys: [{ credential_id: spare.id }] });
    const moved = await api<{ error: { fields: { path: string }[] } }>("PATCH", `/api/v1/models/${spreadModel.id}`, {
      token: admin.token,
      body: { credential_id: anthropic.id },
    });
    expect(moved.status).toBe(400);
    const cleared = expectStatus(
      await api<{ keys: unknown[] }>("PATCH", `/api/v1/models/${spreadModel.id}`, { token: admin.token, body: { keys: null } }),
      200,
    );
    expect(cleared.keys).toEqual([]);
  });

  it("takes a deleted credential out of the keys of every model that lists it", async () => {
    const { admin } = await teamWithPeople();
    const own = await storeCredential(admin.token, "team", `sk-a-${crypto.randomUUID()}`);
    const [gone, kept] = [
      await storeCredential(admin.token, "team", `sk-b-${crypto.randomUUID()}`),
      await storeCredential(admin.token, "team", `sk-c-${crypto.randomUUID()}`),
    ];
    const model = await storeModel(admin.token, {
      credential_id: own.id,
      scope: "team",
      keys: [{ credential_id: gone.id }, { credential_id: kept.id, weight: 2 }],
    });
    expectStatus(await api("DELETE", `/api/v1/credentials/${gone.id}`, { token: admin.token }), 204);
    const { models } = expectStatus(
      await api<{ models: { id: string; keys: unknown[] }[] }>("GET", "/api/v1/models", { token: admin.token }),
      200,
    );
    expect(models.find((m) => m.id === model.id)?.keys).toEqual([{ credential_id: kept.id, weight: 2 }]);
  });
});
