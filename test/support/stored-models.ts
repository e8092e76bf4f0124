// Helpers for tests of stored credentials and models: create them through the
// admin API as a user would, on the fake provider.
import { env } from "cloudflare:workers";
import { api, expectStatus } from "./admin-client.ts";

export interface StoredCredential {
  id: string;
  scope: "user" | "team";
  key_last_four: string;
  team_id: string;
}

export interface StoredModel {
  id: string;
  name: string;
  scope: "user" | "team";
  credential_id: string;
  model: string;
  enabled: boolean;
  team_id: string;
  owner_user_id: string | null;
  [field: string]: unknown;
}

/** A credential on the fake provider with `apiKey`. */
export async function storeCredential(token: string, scope: "user" | "team", apiKey: string, extra: Record<string, unknown> = {}) {
  const body = {
    name: `cred ${crypto.randomUUID()}`,
    provider: "openai-chat",
    base_url: `${env.FAKE_PROVIDER_URL}/v1`,
    api_key: apiKey,
    scope,
    ...extra,
  };
  return expectStatus(await api<StoredCredential>("POST", "/api/v1/credentials", { token, body }), 201);
}

export async function storeModel(
  token: string,
  body: { name?: string; credential_id: string; scope: "user" | "team"; [field: string]: unknown },
) {
  const full = { name: `model-${crypto.randomUUID()}`, model: "fake-hosted", ...body };
  return expectStatus(await api<StoredModel>("POST", "/api/v1/models", { token, body: full }), 201);
}

export async function modelNames(token: string): Promise<string[]> {
  return expectStatus(await api<{ models: StoredModel[] }>("GET", "/api/v1/models", { token }), 200).models.map((m) => m.name);
}
