// A stored JSON field nests at most 32 levels (docs/hosting.md#credentials-and-models): a deeper
// `extra_body` is refused with 400 before the model is stored, so no turn ends `internal` on it.
import { describe, expect, it } from "vitest";
import { api, type ApiError, createTeam, expectStatus, member } from "../../support/admin-client.ts";
import { modelNames, storeCredential } from "../../support/stored-models.ts";

/** `{"a":{"a":…{"a":1}}}`, `levels` objects deep, written as text (building it as objects would recurse too). */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

describe("stored JSON depth", () => {
  it("refuses an extra_body nested 8,000 levels deep (inside the 64 KiB body cap) with 400 and stores nothing, and takes one 32 levels deep", async () => {
    const team = await createTeam();
    const { token } = await member(team.id, "member");
    const credential = await storeCredential(token, "user", "sk-depth-0123456789");
    const body = (name: string, levels: number) =>
      `{"name":"${name}","credential_id":"${credential.id}","model":"fake-hosted","scope":"user","extra_body":${nested(levels)}}`;

    const deep = await api<ApiError>("POST", "/api/v1/models", { token, body: body("too-deep", 8_000) });
    expect(deep.status, JSON.stringify(deep.body).slice(0, 300)).toBe(400);
    expect(deep.body.error.fields?.[0], JSON.stringify(deep.body).slice(0, 400)).toMatchObject({
      path: "body.extra_body",
      message: "nests deeper than 32 levels",
    });
    expect(await modelNames(token)).not.toContain("too-deep");

    const justOver = await api<ApiError>("POST", "/api/v1/models", { token, body: body("just-over", 33) });
    expect(justOver.status).toBe(400);
    expectStatus(await api("POST", "/api/v1/models", { token, body: body("deep-enough", 32) }), 201);
    expect(await modelNames(token)).toContain("deep-enough");
  });
});
