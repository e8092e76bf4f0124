// POST /api/v1/admin/rotate-data-keys: every team gets a new data key and every stored secret
// (credential keys, header values) is re-encrypted under it; afterwards an old D1 backup with
// today's KEY_ENCRYPTION_KEY opens none of today's rows, today's key none of the backup's, and
// everything still works. A write racing the rotation ends up under the new key.
import type { AuditEntry } from "../../../src/hosting/store/audit-rows.ts";
import { describe, expect, it } from "vitest";
import { env, exports } from "cloudflare:workers";
import { decryptCredentialKey, encryptCredentialKey } from "../../../src/hosting/keys/credential-key.ts";
import { unwrapDataKey } from "../../../src/hosting/keys/data-key.ts";
import { rotateTeamDataKey } from "../../../src/hosting/keys/data-key-rotation.ts";
import { openHeaders } from "../../../src/hosting/keys/sealed-headers.ts";
import { teamDataKey, withTeamDataKey } from "../../../src/hosting/keys/team-data-key.ts";
import type { AppEnv } from "../../../src/core/env.ts";
import { Code } from "../../../src/core/errors.ts";
import { insertCredential } from "../../../src/hosting/store/credential-rows.ts";
import { teamById, updateTeam } from "../../../src/hosting/store/team-rows.ts";
import { checkOtlp, otlpPatch } from "../../../src/hosting/admin/team-otlp.ts";
import { teamOtlpOwner } from "../../../src/hosting/config/telemetry-targets.ts";
import { STALE_DATA_KEY, stillSealedUnder } from "../../../src/hosting/store/data-key-rows.ts";
import { replaceDomains } from "../../../src/hosting/store/sign-on-rows.ts";
import { d1, newId } from "../../../src/hosting/store/db.ts";
import { type ApiError, api, expectStatus, teamWithPeople } from "../../support/admin-client.ts";
import { BASE } from "../../support/cursor-client.ts";
import { deferred, withTimeout } from "../../support/deferred.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

const secrets = env as AppEnv;

interface Rotation {
  teams: number;
  rotated: number;
  credential_keys: number;
  header_sets: number;
  failed: number;
  failures: { team_id: string; message: string }[];
}

const rotate = (teamId: string) => api<Rotation>("POST", `/api/v1/admin/rotate-data-keys?team_id=${teamId}`);

/** A team's rows as a D1 backup would hold them. */
async function backupOf(teamId: string) {
  const team = await env.DB.prepare("SELECT wrapped_data_key FROM teams WHERE id = ?").bind(teamId).first<{ wrapped_data_key: string }>();
  const { results } = await env.DB.prepare("SELECT id, encrypted_key, sealed_headers FROM credentials WHERE team_id = ? ORDER BY id")
    .bind(teamId)
    .all<{ id: string; encrypted_key: string; sealed_headers: string | null }>();
  return { wrapped: team!.wrapped_data_key, credentials: results };
}

/** The model's check call through the gateway, and what the fake provider received. */
async function check(token: string, modelName: string) {
  const res = await exports.default.fetch(`${BASE}/byok/v1/models/${modelName}/check`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: "{}",
  });
  return (await res.json()) as { ok: boolean };
}

describe("data-key rotation", () => {
  it("re-encrypts every credential key and header set under a new data key, so old backups and new rows no longer open each other", async () => {
    const { team, admin, member } = await teamWithPeople();
    const scenario = await createScenario([chatText(["OK"]), chatText(["OK"]), chatText(["OK"])]);
    const teamKey = `sk-team-${crypto.randomUUID()}`;
    const secretHeader = `hv-${crypto.randomUUID()}`;
    const shared = await storeCredential(admin.token, "team", teamKey, {
      headers: { "x-fake-scenario": scenario.id, "x-gateway-secret": secretHeader },
    });
    // A personal credential is sealed to its owner's personal key (docs/keys-at-rest.md#personal-keys): the rotation leaves it alone.
    const personal = await storeCredential(member.token, "user", `sk-personal-${crypto.randomUUID()}`);
    const model = await storeModel(admin.token, {
      credential_id: shared.id,
      scope: "team",
      headers: { "x-model-secret": secretHeader },
    });
    expect(await check(member.token, model.name)).toMatchObject({ ok: true });
    const before = await backupOf(team.id);

    const outcome = expectStatus(await rotate(team.id), 200);
    expect(outcome).toEqual({ teams: 1, rotated: 1, credential_keys: 1, header_sets: 2, failed: 0, failures: [] });
    expect(JSON.stringify(outcome)).not.toContain(secretHeader);

    const after = await backupOf(team.id);
    expect(after.wrapped).not.toBe(before.wrapped);
    const previous = await env.DB.prepare("SELECT previous_wrapped_data_key AS p FROM teams WHERE id = ?")
      .bind(team.id)
      .first<{ p: null }>();
    expect(previous?.p).toBeNull();

    // The backup's data key opens with today's KEK, but none of today's rows; today's key none of the backup's.
    const oldKey = await unwrapDataKey(secrets, team.id, before.wrapped);
    const newKey = await unwrapDataKey(secrets, team.id, after.wrapped);
    const personalThen = before.credentials.find((c) => c.id === personal.id);
    expect(after.credentials.find((c) => c.id === personal.id)).toEqual(personalThen);
    for (const [i, now] of after.credentials.entries()) {
      const then = before.credentials[i]!;
      if (now.id === personal.id) continue;
      const owner = { teamId: team.id, credentialId: now.id };
      await expect(decryptCredentialKey(oldKey, owner, now.encrypted_key)).rejects.toMatchObject({ code: Code.DataLoss });
      await expect(decryptCredentialKey(newKey, owner, then.encrypted_key)).rejects.toMatchObject({ code: Code.DataLoss });
      await expect(decryptCredentialKey(oldKey, owner, then.encrypted_key)).resolves.toBeTypeOf("string");
    }
    const sealedNow = after.credentials.find((c) => c.id === shared.id)!.sealed_headers!;
    const headersOwner = { teamId: team.id, kind: "credential", id: shared.id } as const;
    await expect(openHeaders(oldKey, headersOwner, sealedNow)).rejects.toMatchObject({ code: Code.DataLoss });
    expect(await openHeaders(newKey, headersOwner, sealedNow)).toEqual({
      "x-fake-scenario": scenario.id,
      "x-gateway-secret": secretHeader,
    });

    // Still usable: the key and both header sets reach the provider.
    expect(await check(member.token, model.name)).toMatchObject({ ok: true });
    const requests = await scenario.requests(2);
    expect(requests[1]!.headers).toMatchObject({
      authorization: `Bearer ${teamKey}`,
      "x-gateway-secret": secretHeader,
      "x-model-secret": secretHeader,
    });

    // Again: a new key again, the same rows.
    expect(expectStatus(await rotate(team.id), 200)).toMatchObject({ rotated: 1, credential_keys: 1, header_sets: 2 });
    expect(await check(member.token, model.name)).toMatchObject({ ok: true });
  });

  it("stores a credential written with the old data key after the switch under the new one", async () => {
    const { team, admin } = await teamWithPeople();
    await storeCredential(admin.token, "team", `sk-before-${crypto.randomUUID()}`);
    const db = d1(env.DB);
    const holdingOldKey = deferred();
    const releaseWriter = deferred();
    const sealedWith: string[] = [];
    const id = newId("cred");
    const apiKey = `sk-racing-${crypto.randomUUID()}`;
    // A write that read the team's key before the rotation switched it, and writes after.
    const writer = withTeamDataKey(secrets, db, team.id, async ({ dataKey, wrapped }) => {
      sealedWith.push(wrapped);
      if (sealedWith.length === 1) {
        holdingOldKey.resolve();
        await releaseWriter.promise;
      }
      const now = Date.now();
      const row = {
        id,
        teamId: team.id,
        ownerUserId: null,
        scope: "team" as const,
        name: `racing ${id}`,
        provider: "openai-chat" as const,
        baseUrl: `${env.FAKE_PROVIDER_URL}/v1`,
        headersJson: null,
        sealedHeaders: null,
        headerNamesJson: null,
        encryptedKey: await encryptCredentialKey(dataKey, { teamId: team.id, credentialId: id }, apiKey),
        keyLastFour: "",
        personalKeyId: null,
        brokenAtMs: null,
        brokenReason: null,
        createdAtMs: now,
        updatedAtMs: now,
        deletedAtMs: null,
      };
      return insertCredential(db, row, [testEntry(row.teamId, row.id)], wrapped);
    });
    await withTimeout(holdingOldKey.promise, 5_000, "the writer to hold the old key");
    let createdInGap = "";
    const rotation = rotateTeamDataKey(secrets, db, team.id, {
      afterSwitch: async () => {
        releaseWriter.resolve();
        expect(await writer).toBe("created");
        // A credential created through the API meanwhile is sealed with the new key at once.
        createdInGap = (await storeCredential(admin.token, "team", `sk-in-gap-${crypto.randomUUID()}`)).id;
      },
    });
    const rotated = await withTimeout(rotation, 10_000, "the rotation");
    expect(rotated.rotated).toBe(true);
    // The first seal used the old key and was refused; the second used the new one.
    expect(sealedWith).toHaveLength(2);
    expect(sealedWith[0]).not.toBe(sealedWith[1]);

    const current = await teamDataKey(secrets, db, team.id);
    expect(current.wrapped).toBe(sealedWith[1]);
    expect(current.previous).toBeUndefined();
    const { results } = await env.DB.prepare("SELECT id, encrypted_key FROM credentials WHERE team_id = ?")
      .bind(team.id)
      .all<{ id: string; encrypted_key: string }>();
    expect(results.map((r) => r.id)).toEqual(expect.arrayContaining([id, createdInGap]));
    for (const row of results) {
      await expect(decryptCredentialKey(current.dataKey, { teamId: team.id, credentialId: row.id }, row.encrypted_key)).resolves.toBeTypeOf(
        "string",
      );
    }
  });

  it("refuses a sealed write whose data key the team no longer holds", async () => {
    const { team, admin } = await teamWithPeople();
    await storeCredential(admin.token, "team", `sk-first-${crypto.randomUUID()}`);
    const db = d1(env.DB);
    const old = await teamDataKey(secrets, db, team.id);
    await rotateTeamDataKey(secrets, db, team.id);
    const id = newId("cred");
    const now = Date.now();
    const row = {
      id,
      teamId: team.id,
      ownerUserId: null,
      scope: "team" as const,
      name: `stale ${id}`,
      provider: "openai-chat" as const,
      baseUrl: `${env.FAKE_PROVIDER_URL}/v1`,
      headersJson: null,
      sealedHeaders: null,
      headerNamesJson: null,
      encryptedKey: await encryptCredentialKey(old.dataKey, { teamId: team.id, credentialId: id }, "sk-stale-0123456789"),
      keyLastFour: "",
      personalKeyId: null,
      brokenAtMs: null,
      brokenReason: null,
      createdAtMs: now,
      updatedAtMs: now,
      deletedAtMs: null,
    };
    expect(await insertCredential(db, row, [testEntry(row.teamId, row.id)], old.wrapped)).toBe(STALE_DATA_KEY);
    expect(await env.DB.prepare("SELECT 1 FROM credentials WHERE id = ?").bind(id).first()).toBeNull();
  });

  it("refuses a team patch sealed under a data key the team no longer holds: neither its collector headers nor its domains are written, nothing is recorded", async () => {
    const { team, admin } = await teamWithPeople();
    await storeCredential(admin.token, "team", `sk-first-${crypto.randomUUID()}`);
    const db = d1(env.DB);
    const old = await teamDataKey(secrets, db, team.id);
    await rotateTeamDataKey(secrets, db, team.id);
    const setting = checkOtlp({}, { endpoint: "https://collector.example.com", headers: { authorization: "Bearer stale" } });
    const entry = { ...testEntry(team.id, team.id), action: "team.telemetry" as const, target: { kind: "team" as const, id: team.id } };
    const patch = await otlpPatch(team.id, setting, old);
    const domain = `stale-${crypto.randomUUID()}.example.com`;
    const domains = replaceDomains(db, team.id, [domain], stillSealedUnder(team.id, old.wrapped));
    expect(await updateTeam(db, team.id, patch, Date.now(), [entry], domains, old.wrapped)).toBe(STALE_DATA_KEY);
    expect((await teamById(db, team.id))?.otlpEndpoint).toBeNull();
    expect(await env.DB.prepare("SELECT 1 FROM sso_domains WHERE domain = ?").bind(domain).first()).toBeNull();
    const recorded = await env.DB.prepare("SELECT count(*) AS n FROM audit WHERE team_id = ? AND action = 'team.telemetry'")
      .bind(team.id)
      .first<{ n: number }>();
    expect(recorded?.n).toBe(0);
    // Through the API the same setting is sealed under the team's current key and opens with it.
    expectStatus(
      await api("PATCH", `/api/v1/teams/${team.id}`, {
        token: admin.token,
        body: { otlp: { endpoint: "https://collector.example.com", headers: { authorization: "Bearer fresh" } } },
      }),
      200,
    );
    const current = await teamDataKey(secrets, db, team.id);
    const stored = await teamById(db, team.id);
    expect(await openHeaders(current.dataKey, teamOtlpOwner(team.id), stored!.otlpSealedHeaders!)).toEqual({
      authorization: "Bearer fresh",
    });
    // With domains in the same patch (the operator's), they are written under the same condition, and are.
    const fresh = `fresh-${crypto.randomUUID()}.example.com`;
    const otlp = { endpoint: "https://collector.example.com", headers: { authorization: "Bearer again" } };
    expectStatus(await api("PATCH", `/api/v1/teams/${team.id}`, { body: { otlp, sso_domains: [fresh] } }), 200);
    expect(await env.DB.prepare("SELECT team_id FROM sso_domains WHERE domain = ?").bind(fresh).first()).toEqual({ team_id: team.id });
  });

  it("finishes a rotation that stopped halfway, and is the operator's alone", async () => {
    const { team, admin, member } = await teamWithPeople();
    const credential = await storeCredential(admin.token, "team", `sk-half-${crypto.randomUUID()}`);
    const db = d1(env.DB);
    const stopped = new Error("stopped halfway");
    await expect(
      rotateTeamDataKey(secrets, db, team.id, {
        afterSwitch: () => Promise.reject(stopped),
      }),
    ).rejects.toBe(stopped);
    expect((await teamDataKey(secrets, db, team.id)).previous).toBeDefined();

    const outcome = expectStatus(await rotate(team.id), 200);
    expect(outcome).toMatchObject({ rotated: 1, credential_keys: 1, failed: 0 });
    const current = await teamDataKey(secrets, db, team.id);
    expect(current.previous).toBeUndefined();
    const row = await env.DB.prepare("SELECT encrypted_key FROM credentials WHERE id = ?")
      .bind(credential.id)
      .first<{ encrypted_key: string }>();
    await expect(
      decryptCredentialKey(current.dataKey, { teamId: team.id, credentialId: credential.id }, row!.encrypted_key),
    ).resolves.toMatch(/^sk-half-/);

    for (const token of [admin.token, member.token]) {
      const res = await api<ApiError>("POST", "/api/v1/admin/rotate-data-keys", { token });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "permission_denied" });
    }
    // The operator's run is one keys.rotate entry with its counts; the refusals are denied entries.
    type Entries = { entries: { outcome: string; target: { id: string }; details: Record<string, unknown> }[] };
    const entries = expectStatus(await api<Entries>("GET", "/api/v1/audit?action=keys.rotate&limit=200"), 200).entries;
    expect(entries.find((e) => e.outcome === "ok" && e.target.id === team.id)?.details).toMatchObject({ rotated: 1, credential_keys: 1 });
    expect(entries.filter((e) => e.outcome === "denied").length).toBeGreaterThanOrEqual(2);
  });
});

/** The audit entry a direct store call needs, as the credentials route would write it. */
function testEntry(teamId: string, credentialId: string): AuditEntry {
  return {
    atMs: Date.now(),
    actor: { kind: "operator", id: "operator", email: null },
    action: "credential.create",
    target: { kind: "credential", id: credentialId },
    teamId,
    outcome: "ok",
    ip: null,
    userAgent: null,
    details: {},
  };
}
