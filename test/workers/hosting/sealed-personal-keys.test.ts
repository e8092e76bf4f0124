// Personal keys sealed to their owner (docs/keys-at-rest.md#personal-keys): a member's personal
// credentials open only in requests that carry a token of theirs holding a wrap of their
// personal key. Each consequence the contract lists, through the real worker and local D1.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:workers";
import { Code } from "@connectrpc/connect";
import { decryptCredentialKey } from "../../../src/hosting/keys/credential-key.ts";
import { unwrapDataKey } from "../../../src/hosting/keys/data-key.ts";
import { ownerSecretOf, unwrapPersonalKey } from "../../../src/hosting/keys/personal-key.ts";
import { api, type ApiError, createTeam, createUser, expectStatus, issueToken, member } from "../../support/admin-client.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

const SEALED = "personal credentials are sealed to your own tokens; unlock this token from one of yours";
const secrets = env as unknown as { KEY_ENCRYPTION_KEY: string };

/** A member whose first personal credential was made with a token they issued themselves, plus a team model. */
async function sealedMember() {
  const team = await createTeam();
  const admin = await member(team.id, "admin");
  const user = await createUser(team.id, "member");
  // The operator's token gets the member in; the member's own token is issued from it.
  const handed = await issueToken(user.id);
  const own = await issueToken(user.id, { name: "own" }, handed.token);
  const personalKey = `sk-personal-${crypto.randomUUID()}`;
  const personal = await storeCredential(own.token, "user", personalKey);
  const personalModel = await storeModel(own.token, { name: "fake-model", credential_id: personal.id, scope: "user" });
  const shared = await storeCredential(admin.token, "team", `sk-team-${crypto.randomUUID()}`);
  const teamModel = await storeModel(admin.token, { name: "team-model", credential_id: shared.id, scope: "team" });
  return { team, admin, user, handed, own, personal, personalKey, personalModel, teamModel };
}

/** The end of one Cursor turn run with `token` on `model`, the provider answering "OK". */
async function turnEnd(token: string, model: string) {
  const scenario = await createScenario([chatText(["OK"])]);
  const { reader } = await startTurn(
    { conversationId: crypto.randomUUID(), text: `hello ${scenario.marker}`, model },
    { headers: { authorization: `Bearer ${token}` } },
  );
  return reader.end();
}

/** The member enters a credential's key again (a rotation), with `token`. */
async function enterKeyAgain(token: string, credentialId: string) {
  const body = { api_key: `sk-again-${crypto.randomUUID()}` };
  expectStatus(await api("POST", `/api/v1/credentials/${credentialId}/rotate`, { token, body }), 200);
}

function testModel(token: string, modelId: string) {
  return api<{ ok: boolean } & Partial<ApiError>>("POST", `/api/v1/models/${modelId}/test`, { token });
}

describe("personal keys sealed to their owner", () => {
  it("keeps a personal credential closed to D1's rows and KEY_ENCRYPTION_KEY taken together", async () => {
    const { team, user, personal, personalKey } = await sealedMember();
    const row = await env.DB.prepare("SELECT * FROM credentials WHERE id = ?").bind(personal.id).first<Record<string, string>>();
    const teamRow = await env.DB.prepare("SELECT * FROM teams WHERE id = ?").bind(team.id).first<Record<string, string | null>>();
    const userRow = await env.DB.prepare("SELECT * FROM users WHERE id = ?").bind(user.id).first<Record<string, string | null>>();
    const { results: tokenRows } = await env.DB.prepare("SELECT * FROM tokens WHERE user_id = ?")
      .bind(user.id)
      .all<{ id: string; token_hash: string; personal_key_wrap: string | null }>();
    const everything = JSON.stringify({ row, teamRow, userRow, tokenRows });
    expect(everything).not.toContain(personalKey);
    expect(everything).not.toContain(personalKey.slice(12, 30));

    // Every key D1 and the KEK give: the team's data key (its team credential made one).
    expect(teamRow?.wrapped_data_key).toEqual(expect.any(String));
    const dataKey = await unwrapDataKey(secrets, team.id, teamRow!.wrapped_data_key!);
    await expect(decryptCredentialKey(dataKey, { teamId: team.id, credentialId: personal.id }, row!.encrypted_key!)).rejects.toMatchObject({
      code: Code.DataLoss,
    });
    // The wraps are stored, but what derives their keys is the token, of which D1 holds only a hash.
    expect(tokenRows.some((t) => t.personal_key_wrap !== null)).toBe(true);
    for (const t of tokenRows) {
      for (const guess of [t.token_hash, secrets.KEY_ENCRYPTION_KEY, t.id]) {
        const secret = await ownerSecretOf(t.id, guess, t.personal_key_wrap);
        expect(await unwrapPersonalKey(secret, user.id, userRow!.personal_key_id!)).toBeUndefined();
      }
    }
  });

  it("runs a token an admin issued after the key exists on team models, not personal ones, until its owner unlocks it", async () => {
    const { team, admin, user, own, personalModel, teamModel } = await sealedMember();
    const byAdmin = await issueToken(user.id, { name: "from admin" }, admin.token);

    expect(await turnEnd(byAdmin.token, teamModel.name)).toEqual({});
    const refused = await turnEnd(byAdmin.token, personalModel.name);
    expect(refused.error).toMatchObject({ code: "failed_precondition", message: expect.stringContaining(SEALED) });
    const tested = await testModel(byAdmin.token, personalModel.id);
    expect(tested.status).toBe(412);
    expect(tested.body.error?.message).toContain(SEALED);
    // Nor can it make a personal credential under the member's key.
    const made = await api<ApiError>("POST", "/api/v1/credentials", {
      token: byAdmin.token,
      body: { name: "x", provider: "openai-chat", base_url: `${env.FAKE_PROVIDER_URL}/v1`, api_key: "sk-x-0123456789", scope: "user" },
    });
    expect(made.status).toBe(412);
    expect(made.body.error.message).toContain(SEALED);

    // The admin cannot unlock it; the token itself cannot either; a wrong token text is refused.
    const unlock = (token: string, body: unknown) => api<ApiError>("POST", `/api/v1/tokens/${byAdmin.id}/unlock`, { token, body });
    expect((await unlock(admin.token, { token: byAdmin.token })).status).toBe(403);
    expect((await unlock(byAdmin.token, { token: byAdmin.token })).status).toBe(412);
    expect((await unlock(own.token, { token: own.token })).status).toBe(400);

    const unlocked = expectStatus(await unlock(own.token, { token: byAdmin.token }), 200);
    expect(unlocked).toMatchObject({ id: byAdmin.id, holds_personal_key: true });
    expect(JSON.stringify(unlocked)).not.toContain(byAdmin.token);
    expect(await turnEnd(byAdmin.token, personalModel.name)).toEqual({});

    const audit = expectStatus(
      await api<{ entries: { action: string; outcome: string; target: { id: string }; details: Record<string, unknown> }[] }>(
        "GET",
        `/api/v1/audit?team_id=${team.id}&action=token.unlock`,
      ),
      200,
    );
    expect(audit.entries.map((e) => [e.outcome, e.target.id])).toEqual([
      ["ok", byAdmin.id],
      ["denied", byAdmin.id],
    ]);
    expect(JSON.stringify(audit)).not.toContain(byAdmin.token.slice(5));
  });

  it("lets a token the member issues from one of theirs use their personal credentials at once", async () => {
    const { user, own, personalModel } = await sealedMember();
    const laptop = await issueToken(user.id, { name: "laptop" }, own.token);
    expect(await turnEnd(laptop.token, personalModel.name)).toEqual({});
    const listed = expectStatus(
      await api<{ tokens: { id: string; holds_personal_key: boolean }[] }>("GET", `/api/v1/users/${user.id}/tokens`, { token: own.token }),
      200,
    );
    expect(Object.fromEntries(listed.tokens.map((t) => [t.id, t.holds_personal_key]))).toMatchObject({
      [own.id]: true,
      [laptop.id]: true,
    });
  });

  it("destroys a token's wrap when it is revoked, and with the last one the personal keys, which are then entered again", async () => {
    const { user, handed, own, personal, personalModel, teamModel } = await sealedMember();
    const laptop = await issueToken(user.id, { name: "laptop" }, own.token);
    expectStatus(await api("DELETE", `/api/v1/tokens/${laptop.id}`, { token: own.token }), 204);
    const wrapOf = (id: string) =>
      env.DB.prepare("SELECT personal_key_wrap AS w FROM tokens WHERE id = ?").bind(id).first<{ w: string | null }>();
    expect((await wrapOf(laptop.id))?.w).toBeNull();
    expect((await wrapOf(own.id))?.w).toEqual(expect.any(String));

    // The last wrapped token goes: the key is gone, the member is told to enter their keys again.
    expectStatus(await api("DELETE", `/api/v1/tokens/${own.id}`, { token: handed.token }), 204);
    const keyId = await env.DB.prepare("SELECT personal_key_id AS k FROM users WHERE id = ?").bind(user.id).first<{ k: string | null }>();
    expect(keyId?.k).toBeNull();
    const tested = await testModel(handed.token, personalModel.id);
    expect(tested.status).toBe(412);
    expect(tested.body.error?.message).toMatch(/enter the key again/);
    const lost = await turnEnd(handed.token, personalModel.name);
    expect(lost.error?.message).toMatch(/enter the key again/);
    // Team credentials are not affected.
    expect(await turnEnd(handed.token, teamModel.name)).toEqual({});

    // Entering the key again seals it under a new personal key, wrapped for the token used.
    await enterKeyAgain(handed.token, personal.id);
    expect(await turnEnd(handed.token, personalModel.name)).toEqual({});
  });

  it("loses the personal keys when the last token holding them expires, and seals them again for the token that enters one", async () => {
    const { user, handed, own, personal, personalModel } = await sealedMember();
    // The member's own token reaches its expiry (as if its expires_at had passed).
    await env.DB.prepare("UPDATE tokens SET expires_at_ms = ? WHERE id = ?")
      .bind(Date.now() - 1_000, own.id)
      .run();
    const lost = await turnEnd(handed.token, personalModel.name);
    expect(lost.error?.message).toContain(
      `personal credential ${personal.id} was sealed to tokens of yours that are all revoked or expired`,
    );
    const unlock = await api<ApiError>("POST", `/api/v1/tokens/${handed.id}/unlock`, {
      token: handed.token,
      body: { token: handed.token },
    });
    expect(unlock.status).toBe(412);
    expect(unlock.body.error.message).toMatch(/you hold no personal key/);
    await enterKeyAgain(handed.token, personal.id);
    expect(await turnEnd(handed.token, personalModel.name)).toEqual({});
    const keyId = await env.DB.prepare("SELECT personal_key_id AS k FROM users WHERE id = ?").bind(user.id).first<{ k: string }>();
    const credentialKey = await env.DB.prepare("SELECT personal_key_id AS k FROM credentials WHERE id = ?")
      .bind(personal.id)
      .first<{ k: string }>();
    expect(credentialKey?.k).toBe(keyId?.k);
  });

  it("refuses the operator a new key for a personal credential, which only its owner can enter", async () => {
    const { personal, own, personalModel } = await sealedMember();
    const refused = await api<ApiError>("POST", `/api/v1/credentials/${personal.id}/rotate`, {
      body: { api_key: "sk-operator-0123456789" },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("permission_denied");
    expect(await turnEnd(own.token, personalModel.name)).toEqual({});
  });

  it("drops a removed user's personal key and its wraps with their tokens", async () => {
    const { admin, user } = await sealedMember();
    expectStatus(await api("DELETE", `/api/v1/users/${user.id}`, { token: admin.token }), 204);
    const row = await env.DB.prepare("SELECT personal_key_id AS k FROM users WHERE id = ?").bind(user.id).first<{ k: string | null }>();
    expect(row?.k).toBeNull();
    const wraps = await env.DB.prepare("SELECT COUNT(*) AS n FROM tokens WHERE user_id = ? AND personal_key_wrap IS NOT NULL")
      .bind(user.id)
      .first<{ n: number }>();
    expect(wraps?.n).toBe(0);
  });
});
