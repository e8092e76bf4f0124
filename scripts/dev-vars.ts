// The .dev.vars of a first `npm run dev`: when there is none, one is written with fresh
// secrets (a BYOK_TOKEN to sign in with, a KEY_ENCRYPTION_KEY for stored keys), mode 0600,
// never over an existing file (README.md#set-up-and-run-two-commands).
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";

/** The file's text: the generated secrets, then every other setting as a comment. */
export function freshDevVars(): { text: string; token: string } {
  const token = `byok-local_${randomBytes(32).toString("base64url")}`;
  const kek = randomBytes(32).toString("base64");
  const text = `# Written by the first \`npm run dev\` with fresh secrets; never commit it. Every entry
# is passed on to wrangler. .dev.vars.example describes them all.

# The bearer token of the built-in single user "local": sign in to the dashboard with it,
# and give it to Cursor (npm run connect) or the agent CLI.
BYOK_TOKEN=${token}

# 32 random bytes, base64: encrypts the provider keys stored from the dashboard. Keep it:
# without it stored keys cannot be read again.
KEY_ENCRYPTION_KEY=${kek}

# A local npm run dev lets models live on loopback or your network (Ollama, LM Studio,
# llama.cpp server, vLLM). A deployment refuses such base URLs unless this is set there too.
BYOK_ALLOW_PRIVATE_UPSTREAMS=true

# Models are added in the dashboard (Credentials, then Models). Models from this file,
# as a JSON array, are listed there too, read-only:
# BYOK_MODELS='[{"name":"gpt-4.1","provider":"openai-chat","base_url":"https://api.openai.com/v1","api_key":"sk-your-key","model":"gpt-4.1"}]'

# Hosting for teams (docs/hosting.md): the operator's token.
# ADMIN_TOKEN=

# Web search (WebSearch is offered only with it):
# BYOK_SEARCH='{"provider":"brave","api_key":"your-brave-key"}'
`;
  return { text, token };
}

/**
 * Writes a fresh .dev.vars at `path` unless a file is there; the token it holds, or undefined
 * when the file existed (its contents are the user's and stay as they are).
 */
export function writeDevVarsOnce(path: string): string | undefined {
  const { text, token } = freshDevVars();
  try {
    writeFileSync(path, text, { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw err;
  }
  return token;
}

/** What the first run prints once: where to sign in, with what, and how Cursor gets there. */
export function firstRunBanner(url: string, token: string): string {
  return [
    "",
    "byok-edge: wrote .dev.vars with fresh secrets (mode 0600).",
    `  Dashboard:  ${url}/   (sign in with the token below)`,
    `  Token:      ${token}`,
    "  Cursor:     in another terminal, with the token in BYOK_TOKEN:",
    `              BYOK_TOKEN='${token}' npm run connect -- --url ${url} --token-env BYOK_TOKEN`,
    "  Models:     in the dashboard: Credentials (a provider or a local server), then Models",
    "",
  ].join("\n");
}
