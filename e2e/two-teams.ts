// The README's "two teams on one wrangler dev", checked: the operator creates two
// teams through the admin API, each team's admin stores the team's own key and a
// model of the same name on the fake provider, one turn runs per team, and each
// provider request carried its own team's key; the usage API sees both users.
import { randomBytes } from "node:crypto";
import { toHex } from "../src/proto/bytes.ts";

const CALL_TIMEOUT_MS = 15_000;

/** Runs one turn as `token` on `model`, asserting the provider got `apiKey` (e2e/main.ts checkTurn). */
export type Turn = (token: string, model: string, apiKey: string) => Promise<string>;

async function adminCall<T>(
  baseUrl: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

async function expectCreated<T>(call: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const res = await call;
  if (res.status !== 201) throw new Error(`${what} → HTTP ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function checkTwoTeams(baseUrl: string, adminToken: string, providerBase: string, upstreamModel: string, turn: Turn) {
  const teams = [];
  for (const name of ["Red", "Blue"]) {
    const team = await expectCreated(
      adminCall<{ id: string }>(baseUrl, adminToken, "POST", "/api/v1/teams", { name: `${name} ${toHex(randomBytes(3))}` }),
      "create team",
    );
    const admin = await expectCreated(
      adminCall<{ id: string }>(baseUrl, adminToken, "POST", `/api/v1/teams/${team.id}/users`, {
        email: `${name.toLowerCase()}@example.com`,
        role: "admin",
      }),
      "create admin",
    );
    const { token } = await expectCreated(
      adminCall<{ token: string }>(baseUrl, adminToken, "POST", `/api/v1/users/${admin.id}/tokens`, { name: "e2e" }),
      "issue token",
    );
    const apiKey = `sk-${name.toLowerCase()}-${toHex(randomBytes(12))}`;
    const credential = await expectCreated(
      adminCall<{ id: string }>(baseUrl, token, "POST", "/api/v1/credentials", {
        name: `${name} key`,
        provider: "openai-chat",
        base_url: `${providerBase}/v1`,
        api_key: apiKey,
        scope: "team",
      }),
      "store the team's credential",
    );
    // The same model name in both teams: each token must reach its own team's.
    await expectCreated(
      adminCall(baseUrl, token, "POST", "/api/v1/models", {
        name: "team-model",
        credential_id: credential.id,
        model: upstreamModel,
        scope: "team",
        context_window: 131_072,
      }),
      "add the team's model",
    );
    teams.push({ userId: admin.id, token, apiKey });
  }
  for (const team of teams) await turn(team.token, "team-model", team.apiKey);

  // Usage is written after the run (waitUntil), so this polls, bounded.
  const deadline = Date.now() + CALL_TIMEOUT_MS;
  for (;;) {
    const usage = await adminCall<{ rows: { user_id: string; requests: number }[] }>(
      baseUrl,
      adminToken,
      "GET",
      "/api/v1/usage?group_by=user",
    );
    const rows = teams.map((team) => usage.body.rows.find((r) => r.user_id === team.userId));
    if (rows.every((row) => row?.requests === 1)) return;
    if (Date.now() > deadline) throw new Error(`the usage API did not show one run per team: ${JSON.stringify(usage.body)}`);
  }
}
