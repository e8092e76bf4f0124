// The README's "two teams on one wrangler dev", checked: the operator creates two
// teams through the admin API, each team's admin stores the team's own key and a
// model of the same name on the fake provider, one turn runs per team, and each
// provider request carried its own team's key; the usage API sees both users.
import { randomBytes } from "node:crypto";
import { toHex } from "../src/core/bytes.ts";
import { callApi } from "./support/admin-api.ts";
import { until } from "./support/until.ts";

const CALL_TIMEOUT_MS = 15_000;
/** What each create here must answer (docs/hosting.md#admin-api). */
const CREATED = 201;

/** Runs one turn as `token` on `model`, asserting the provider got `apiKey` (e2e/main.ts checkTurn). */
export type Turn = (token: string, model: string, apiKey: string) => Promise<string>;

export async function checkTwoTeams(baseUrl: string, adminToken: string, providerBase: string, upstreamModel: string, turn: Turn) {
  const teams: { userId: string; token: string; apiKey: string }[] = [];
  for (const name of ["Red", "Blue"]) {
    const team = await callApi<{ id: string }>(
      baseUrl,
      adminToken,
      "POST",
      "/teams",
      { name: `${name} ${toHex(randomBytes(3))}` },
      CREATED,
    );
    const admin = await callApi<{ id: string }>(
      baseUrl,
      adminToken,
      "POST",
      `/teams/${team.id}/users`,
      {
        email: `${name.toLowerCase()}@example.com`,
        role: "admin",
      },
      CREATED,
    );
    const { token } = await callApi<{ token: string }>(baseUrl, adminToken, "POST", `/users/${admin.id}/tokens`, { name: "e2e" }, CREATED);
    const apiKey = `sk-${name.toLowerCase()}-${toHex(randomBytes(12))}`;
    const credential = await callApi<{ id: string }>(
      baseUrl,
      token,
      "POST",
      "/credentials",
      {
        name: `${name} key`,
        provider: "openai-chat",
        base_url: `${providerBase}/v1`,
        api_key: apiKey,
        scope: "team",
      },
      CREATED,
    );
    // The same model name in both teams: each token must reach its own team's.
    await callApi(
      baseUrl,
      token,
      "POST",
      "/models",
      {
        name: "team-model",
        credential_id: credential.id,
        model: upstreamModel,
        scope: "team",
        context_window: 131_072,
      },
      CREATED,
    );
    teams.push({ userId: admin.id, token, apiKey });
  }
  for (const team of teams) await turn(team.token, "team-model", team.apiKey);

  // Usage is written after the run (waitUntil), so this polls, bounded.
  let last: unknown;
  await until(
    () => `one run per team in the usage API, which showed ${JSON.stringify(last)}`,
    CALL_TIMEOUT_MS,
    async () => {
      const usage = await callApi<{ rows: { user_id: string; requests: number }[] }>(baseUrl, adminToken, "GET", "/usage?group_by=user");
      last = usage;
      const rows = teams.map((team) => usage.rows.find((r) => r.user_id === team.userId));
      return rows.every((row) => row?.requests === 1) ? true : undefined;
    },
  );
}
