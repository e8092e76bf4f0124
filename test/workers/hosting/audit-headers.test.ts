// The audit entries of a model's headers name them as they are after the write, never
// their values (docs/hosting.md#audit-log): sealed on create, replaced or cleared on update.
import { describe, expect, it } from "vitest";
import { api, expectStatus, teamWithPeople } from "../../support/admin-client.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

type Entries = { entries: { action: string; target: { id: string }; details: { header_names?: string[] } }[] };

async function headerNamesOf(token: string, action: string, modelId: string): Promise<string[] | undefined> {
  const { entries } = expectStatus(await api<Entries>("GET", `/api/v1/audit?action=${action}&limit=200`, { token }), 200);
  return entries.find((e) => e.target.id === modelId)?.details.header_names;
}

describe("audit entries of a model's headers", () => {
  it("names the headers a model was created with and those left after an update, never their values", async () => {
    const { admin } = await teamWithPeople();
    const credential = await storeCredential(admin.token, "team", `sk-audit-headers-${crypto.randomUUID()}`);
    const value = `secret-${crypto.randomUUID()}`;
    const model = await storeModel(admin.token, { credential_id: credential.id, scope: "team", headers: { "x-trace": value } });
    expect(await headerNamesOf(admin.token, "model.create", model.id)).toEqual(["x-trace"]);

    expectStatus(
      await api("PATCH", `/api/v1/models/${model.id}`, { token: admin.token, body: { headers: null, max_output_tokens: 10 } }),
      200,
    );
    expect(await headerNamesOf(admin.token, "model.update", model.id)).toEqual([]);
    const all = JSON.stringify((await api<Entries>("GET", "/api/v1/audit?limit=200", { token: admin.token })).body);
    expect(all).not.toContain(value);
  });
});
