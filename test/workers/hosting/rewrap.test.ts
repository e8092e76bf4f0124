// POST /api/v1/admin/rewrap after a KEK rotation: every team's data key ends up
// under KEY_ENCRYPTION_KEY, the same data key (credentials still decrypt), one bad
// row does not stop the others, and only the operator may run it.
import { describe, expect, it } from "vitest";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createDataKey, unwrapDataKey } from "../../../src/hosting/keys/data-key.ts";
import { decryptCredentialKey, encryptCredentialKey } from "../../../src/hosting/keys/credential-key.ts";
import type { AppEnv } from "../../../src/core/env.ts";
import worker from "../../../src/worker.ts";
import { api, type ApiError, createTeam, expectStatus, OPERATOR_TOKEN, teamWithPeople } from "../../support/admin-client.ts";
import { BASE } from "../../support/cursor-client.ts";

/** The test runtime's KEKs (vitest.config.ts), as if mid-rotation. */
const secrets = env as AppEnv;
const TEST_KEKS = { current: secrets.KEY_ENCRYPTION_KEY!, previous: secrets.KEY_ENCRYPTION_KEY_PREVIOUS! };

interface Rewrap {
  teams: number;
  rewrapped: number;
  unchanged: number;
  failed: number;
  failures: { team_id: string; message: string }[];
}

const rewrap = () => api<Rewrap>("POST", "/api/v1/admin/rewrap");

async function storeDataKey(teamId: string, wrapped: string) {
  await env.DB.prepare("UPDATE teams SET wrapped_data_key = ? WHERE id = ?").bind(wrapped, teamId).run();
}

const storedDataKey = async (teamId: string) =>
  (await env.DB.prepare("SELECT wrapped_data_key FROM teams WHERE id = ?").bind(teamId).first<{ wrapped_data_key: string }>())!
    .wrapped_data_key;

async function withEnv(change: Record<string, string | undefined>, path: string, token = OPERATOR_TOKEN) {
  const changed = { ...env, ...change } as typeof env;
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`${BASE}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` } }),
    changed,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: (await res.json()) as ApiError };
}

describe("rewrap", () => {
  it("re-wraps data keys under the previous KEK, leaves current ones, and reports a broken one", async () => {
    const baseline = expectStatus(await rewrap(), 200);
    const [old, fresh, broken] = [await createTeam(), await createTeam(), await createTeam()];
    const oldKey = await createDataKey({ KEY_ENCRYPTION_KEY: TEST_KEKS.previous }, old.id);
    await storeDataKey(old.id, oldKey.wrapped);
    await storeDataKey(fresh.id, (await createDataKey({ KEY_ENCRYPTION_KEY: TEST_KEKS.current }, fresh.id)).wrapped);
    await storeDataKey(broken.id, "AQ-not-an-envelope");
    const owner = { teamId: old.id, credentialId: "cred_000000000000000000000001" };
    const encrypted = await encryptCredentialKey(oldKey.dataKey, owner, "sk-rotated-0123456789");

    const outcome = expectStatus(await rewrap(), 200);
    expect(outcome).toEqual({
      teams: baseline.teams + 3,
      rewrapped: 1,
      unchanged: baseline.unchanged + baseline.rewrapped + 1,
      failed: baseline.failed + 1,
      failures: expect.arrayContaining([{ team_id: broken.id, message: "a stored team data key is not a valid key envelope" }]),
    });

    // The previous KEK can go: the same data key opens with the current one alone.
    const onlyCurrent = { KEY_ENCRYPTION_KEY: TEST_KEKS.current };
    const reopened = await unwrapDataKey(onlyCurrent, old.id, await storedDataKey(old.id));
    expect(reopened.id).toEqual(oldKey.dataKey.id);
    expect(await decryptCredentialKey(reopened, owner, encrypted)).toBe("sk-rotated-0123456789");
    expect(await storedDataKey(broken.id)).toBe("AQ-not-an-envelope");
    expect(JSON.stringify(outcome)).not.toContain(TEST_KEKS.previous);

    // Running it again changes nothing.
    const again = expectStatus(await rewrap(), 200);
    expect(again).toMatchObject({ rewrapped: 0, unchanged: outcome.unchanged + 1, failed: outcome.failed });
  });

  it("is the operator's alone: admins and members are permission_denied", async () => {
    const { admin, member } = await teamWithPeople();
    for (const token of [admin.token, member.token]) {
      const res = await api<ApiError>("POST", "/api/v1/admin/rewrap", { token });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "permission_denied" });
    }
  });

  it("is unimplemented without ADMIN_TOKEN and failed_precondition without KEY_ENCRYPTION_KEY", async () => {
    const { admin } = await teamWithPeople();
    const noAdmin = await withEnv({ ADMIN_TOKEN: undefined }, "/api/v1/admin/rewrap", admin.token);
    expect({ status: noAdmin.status, code: noAdmin.body.error.code }).toEqual({ status: 501, code: "unimplemented" });
    const noKek = await withEnv({ KEY_ENCRYPTION_KEY: undefined }, "/api/v1/admin/rewrap");
    expect({ status: noKek.status, code: noKek.body.error.code }).toEqual({ status: 412, code: "failed_precondition" });
    expect(noKek.body.error.message).toMatch(/KEY_ENCRYPTION_KEY is not configured/);
  });
});
