// A throw-away CODEX_HOME for the Codex CLI check: a config.toml that points Codex
// at the local fake OpenAI Responses provider and turns off everything that would
// leave 127.0.0.1, and the environment to run Codex with. Every key was accepted
// by Codex 0.169 under --strict-config; what each one is for is said next to it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SCENARIO_HEADER } from "../../test/support/fake-provider-types.ts";

/** The provider's key variable; its value is a dummy that only the fake provider sees. */
const API_KEY_ENV = "BYOK_E2E_FAKE_OPENAI_KEY";
const FAKE_MODEL = "fake-codex-model";

export interface CodexHome {
  dir: string;
  /** The environment for `codex`: nothing inherited but PATH. */
  env: NodeJS.ProcessEnv;
  apiKey: string;
}

export interface CodexHomeOptions {
  dir: string;
  providerBaseUrl: string;
  scenarioId: string;
  apiKey: string;
  /** The refusing proxy (refusing-proxy.ts): anything Codex sends beyond loopback is recorded and refused. */
  proxyUrl: string;
}

export function writeCodexHome(options: CodexHomeOptions): CodexHome {
  const home = join(options.dir, "codex-home");
  const userHome = join(options.dir, "user-home");
  mkdirSync(home, { recursive: true });
  mkdirSync(userHome, { recursive: true });
  const config = `# Written by e2e/support/codex-home.ts for one run of the Codex CLI check.
model = "${FAKE_MODEL}"
model_provider = "byok-e2e-fake"
check_for_update_on_startup = false       # no release check
suppress_unstable_features_warning = true # code_mode is "under development" in 0.169

[model_providers.byok-e2e-fake]
name = "byok-e2e fake Responses provider"
base_url = "${options.providerBaseUrl}/v1"
wire_api = "responses"
env_key = "${API_KEY_ENV}"                # an API key: Codex needs no ChatGPT login
request_max_retries = 0
stream_max_retries = 0
http_headers = { "${SCENARIO_HEADER}" = "${options.scenarioId}" }

[features]
plugins = false                           # else it syncs curated plugins from github.com and chatgpt.com

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
log_user_prompt = false

[history]
persistence = "none"
`;
  writeFileSync(join(home, "config.toml"), config);
  const noProxy = "127.0.0.1,localhost,::1";
  return {
    dir: home,
    apiKey: options.apiKey,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: userHome,
      CODEX_HOME: home,
      [API_KEY_ENV]: options.apiKey,
      RUST_LOG: "warn",
      NO_COLOR: "1",
      HTTPS_PROXY: options.proxyUrl,
      HTTP_PROXY: options.proxyUrl,
      ALL_PROXY: options.proxyUrl,
      https_proxy: options.proxyUrl,
      http_proxy: options.proxyUrl,
      all_proxy: options.proxyUrl,
      NO_PROXY: noProxy,
      no_proxy: noProxy,
    },
  };
}
