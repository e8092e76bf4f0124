// A client of the admin API for tests: JSON calls through the real worker, and
// helpers that set up a team with users and tokens the way an operator would.
import { exports } from "cloudflare:workers";
import { BASE } from "./cursor-client.ts";

/** ADMIN_TOKEN in the test runtime (vitest.config.ts). */
export const OPERATOR_TOKEN = "test-admin-token";
/** BYOK_TOKEN: the single-user principal "local". */
export const LOCAL_TOKEN = "test-token";

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export interface ApiError {
  /** `fields`: the refused fields of an invalid_argument (docs/hosting.md#errors). */
  error: { code: string; message: string; fields?: { path: string; message: string }[] };
}

export async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  opts: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const token = opts.token === undefined ? OPERATOR_TOKEN : opts.token;
  const res = await exports.default.fetch(`${BASE}${path}`, {
    method,
    headers: {
      ...(token !== null && { authorization: `Bearer ${token}` }),
      ...(opts.body !== undefined && { "content-type": "application/json" }),
      ...opts.headers,
    },
    ...(opts.body !== undefined && { body: typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** Fails the test with the answer when the status is not the expected one. */
export function expectStatus<T>(res: ApiResponse<T>, status: number): T {
  if (res.status !== status) throw new Error(`expected HTTP ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export interface Team {
  id: string;
  name: string;
  monthly_token_budget: number | null;
  created_at: string;
}

export interface User {
  id: string;
  team_id: string;
  email: string;
  role: "admin" | "member";
  requests_per_minute: number | null;
  max_concurrent_runs: number | null;
}

export interface IssuedToken {
  id: string;
  name: string;
  token: string;
  expires_at: string | null;
}

export async function createTeam(name = `team ${crypto.randomUUID()}`): Promise<Team> {
  return expectStatus(await api<Team>("POST", "/api/v1/teams", { body: { name } }), 201);
}

export async function createUser(teamId: string, role: "admin" | "member", token = OPERATOR_TOKEN): Promise<User> {
  const email = `${role}-${crypto.randomUUID()}@example.com`;
  return expectStatus(await api<User>("POST", `/api/v1/teams/${teamId}/users`, { token, body: { email, role } }), 201);
}

export async function issueToken(userId: string, body: { name?: string; expires_at?: string } = {}, token = OPERATOR_TOKEN) {
  return expectStatus(await api<IssuedToken>("POST", `/api/v1/users/${userId}/tokens`, { token, body: { name: "test", ...body } }), 201);
}

export interface Member {
  user: User;
  token: string;
}

/** A user of the team with a fresh token. */
export async function member(teamId: string, role: "admin" | "member"): Promise<Member> {
  const user = await createUser(teamId, role);
  return { user, token: (await issueToken(user.id)).token };
}

/** A new team with one admin and one member, each holding a token. */
export async function teamWithPeople(): Promise<{ team: Team; admin: Member; member: Member }> {
  const team = await createTeam();
  return { team, admin: await member(team.id, "admin"), member: await member(team.id, "member") };
}
