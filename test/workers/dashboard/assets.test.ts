// With the dashboard's static assets configured ([assets] in wrangler.toml,
// docs/dashboard.md) the worker still answers every path that is not a file of
// dashboard/dist. The assets themselves (GET / is the dashboard, with the headers
// of dashboard/public/_headers) are checked through `wrangler dev` in e2e/dashboard.ts:
// exports.default.fetch reaches the worker only, never the assets.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { BASE } from "../../support/cursor-client.ts";

describe("the worker beside the dashboard's assets", () => {
  it("answers the admin API and Cursor's paths itself", async () => {
    const me = await exports.default.fetch(`${BASE}/api/v1/me`);
    expect(me.status).toBe(401);
    expect(((await me.json()) as { error: { code: string } }).error.code).toBe("unauthenticated");
    const models = await exports.default.fetch(`${BASE}/aiserver.v1.AiService/AvailableModels`, { method: "POST" });
    expect(models.status).toBe(401);
    await models.arrayBuffer();
  });
});
