// The hosted user of `npm run bench`: a team, a member and their token made through
// the admin API, and (where the build serves the credentials and models API) a
// personal credential and model on the bench provider, so the bench can compare a
// hosted user's turn with a single-user one (docs/benchmarks.md#hosted-users).
import { performance } from "node:perf_hooks";

export interface HostedUser {
  token: string;
  /** The model's name; undefined when this build does not serve the credentials API. */
  model: string | undefined;
}

async function call<T>(baseUrl: string, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

async function created<T>(res: Promise<{ status: number; body: T }>, what: string): Promise<T> {
  const { status, body } = await res;
  if (status !== 201) throw new Error(`${what} → HTTP ${status}: ${JSON.stringify(body)}`);
  return body;
}

/** `team`: the team's name (one per bench run), and its settings to PATCH after it is made (an OTLP collector). */
export async function createHostedUser(
  baseUrl: string,
  adminToken: string,
  providerBaseUrl: string,
  team: { name: string; settings?: Record<string, unknown> } = { name: "bench" },
): Promise<HostedUser> {
  const made = await created(call<{ id: string }>(baseUrl, adminToken, "POST", "/api/v1/teams", { name: team.name }), "create team");
  if (team.settings) {
    const patched = await call(baseUrl, adminToken, "PATCH", `/api/v1/teams/${made.id}`, team.settings);
    if (patched.status !== 200) throw new Error(`team settings → HTTP ${patched.status}: ${JSON.stringify(patched.body)}`);
  }
  const user = await created(
    call<{ id: string }>(baseUrl, adminToken, "POST", `/api/v1/teams/${made.id}/users`, { email: "bench@example.com", role: "member" }),
    "create user",
  );
  const { token } = await created(
    call<{ token: string }>(baseUrl, adminToken, "POST", `/api/v1/users/${user.id}/tokens`, { name: "bench" }),
    "issue token",
  );
  const credential = await call<{ id: string }>(baseUrl, token, "POST", "/api/v1/credentials", {
    name: "bench",
    provider: "openai-chat",
    base_url: providerBaseUrl,
    api_key: "sk-bench-hosted",
    scope: "user",
  });
  if (credential.status === 404) return { token, model: undefined };
  if (credential.status !== 201) throw new Error(`store credential → HTTP ${credential.status}: ${JSON.stringify(credential.body)}`);
  const model = "bench-hosted";
  await created(
    call(baseUrl, token, "POST", "/api/v1/models", { name: model, credential_id: credential.body.id, model: "bench", scope: "user" }),
    "add model",
  );
  return { token, model };
}

/** Round trips of K unary model-list calls: bearer check (D1 + the 5 s cache for a user token), catalog, answer. */
export async function unaryRoundTrips(baseUrl: string, token: string, count: number): Promise<number[]> {
  const rtts: number[] = [];
  for (let k = 0; k < count; k++) {
    const start = performance.now();
    const res = await fetch(`${baseUrl}/aiserver.v1.AiService/AvailableModels`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/proto" },
      body: new Uint8Array(0),
      signal: AbortSignal.timeout(15_000),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`AvailableModels → ${res.status}`);
    rtts.push(performance.now() - start);
  }
  return rtts;
}

/** The models of the routing section (docs/benchmarks.md#model-routing): one target as today, and one with a second key and a fallback. */
export interface RoutedModels {
  single: string;
  routed: string;
}

/** Two personal credentials on the bench provider; `single` on the first, `routed` with both as keys and a fallback. */
export async function createRoutedModels(baseUrl: string, token: string, providerBaseUrl: string): Promise<RoutedModels> {
  const credential = (name: string) =>
    created(
      call<{ id: string }>(baseUrl, token, "POST", "/api/v1/credentials", {
        name,
        provider: "openai-chat",
        base_url: providerBaseUrl,
        api_key: `sk-${name}`,
        scope: "user",
      }),
      `store credential ${name}`,
    );
  const [first, second] = [await credential("bench-key-1"), await credential("bench-key-2")];
  const model = (name: string, extra: Record<string, unknown> = {}) =>
    created(
      call<{ id: string }>(baseUrl, token, "POST", "/api/v1/models", {
        name,
        credential_id: first.id,
        model: "bench",
        scope: "user",
        ...extra,
      }),
      `add model ${name}`,
    );
  await model("bench-single");
  const spare = await model("bench-spare");
  await model("bench-routed", { keys: [{ credential_id: second.id }], fallbacks: [spare.id] });
  return { single: "bench-single", routed: "bench-routed" };
}
