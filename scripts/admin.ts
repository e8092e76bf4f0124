// `npm run admin -- <command>`: the operator's walkthrough over the admin API
// (docs/hosting.md#operator-walkthrough). Talks to BYOK_URL (default
// http://127.0.0.1:8787) with the bearer token in ADMIN_TOKEN, or a user token in
// BYOK_API_TOKEN; locally ADMIN_TOKEN is read from .dev.vars when not set.
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs, parseEnv } from "node:util";

const USAGE = `usage: npm run admin -- <command> [options]
  me                                          who the token belongs to
  create-team <name> [--budget <tokens>]      a team (operator)
  teams                                       the teams the token sees
  create-user <team_id> <email> [--role admin|member] [--rpm <n>] [--concurrent <n>]
  users <team_id>                             a team's users
  issue-token <user_id> [--name <name>] [--expires <ISO-8601>]
                                              a token for the user, printed once
  tokens <user_id>                            a user's tokens (never the tokens themselves)
  revoke-token <token_id>
environment: BYOK_URL (default http://127.0.0.1:8787), ADMIN_TOKEN or BYOK_API_TOKEN`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    budget: { type: "string" },
    role: { type: "string", default: "member" },
    rpm: { type: "string" },
    concurrent: { type: "string" },
    name: { type: "string", default: "cli" },
    expires: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});

const [command, ...rest] = positionals;
const base = (process.env.BYOK_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
const token = process.env.BYOK_API_TOKEN ?? process.env.ADMIN_TOKEN ?? localAdminToken();

function localAdminToken(): string | undefined {
  const path = resolve(import.meta.dirname, "../.dev.vars");
  const local = /^https?:\/\/(127\.0\.0\.1|localhost)(:|\/|$)/.test(base);
  return local && existsSync(path) ? parseEnv(readFileSync(path, "utf8")).ADMIN_TOKEN : undefined;
}

function arg(index: number, what: string): string {
  const value = rest[index];
  if (!value) fail(`${command} needs ${what}\n\n${USAGE}`);
  return value;
}

function int(value: string | undefined, what: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isSafeInteger(n)) fail(`${what} must be an integer`);
  return n;
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  if (!token) fail("set ADMIN_TOKEN (operator) or BYOK_API_TOKEN (a user token) to call the admin API");
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const parsed: unknown = text ? JSON.parse(text) : null;
  if (!res.ok) {
    const error = (parsed as { error?: { code: string; message: string } } | null)?.error;
    fail(`HTTP ${res.status} ${error ? `${error.code}: ${error.message}` : text}`);
  }
  return parsed;
}

async function run(): Promise<unknown> {
  switch (command) {
    case "me":
      return call("GET", "/me");
    case "create-team":
      return call("POST", "/teams", { name: arg(0, "a name"), monthly_token_budget: int(values.budget, "--budget") });
    case "teams":
      return call("GET", "/teams");
    case "create-user":
      return call("POST", `/teams/${encodeURIComponent(arg(0, "a team id"))}/users`, {
        email: arg(1, "an email"),
        role: values.role,
        requests_per_minute: int(values.rpm, "--rpm"),
        max_concurrent_runs: int(values.concurrent, "--concurrent"),
      });
    case "users":
      return call("GET", `/teams/${encodeURIComponent(arg(0, "a team id"))}/users`);
    case "issue-token":
      return call("POST", `/users/${encodeURIComponent(arg(0, "a user id"))}/tokens`, { name: values.name, expires_at: values.expires });
    case "tokens":
      return call("GET", `/users/${encodeURIComponent(arg(0, "a user id"))}/tokens`);
    case "revoke-token":
      await call("DELETE", `/tokens/${encodeURIComponent(arg(0, "a token id"))}`);
      return { revoked: rest[0] };
    default:
      return fail(USAGE);
  }
}

if (values.help) fail(USAGE);
console.log(JSON.stringify(await run(), null, 2));
