// Two vitest projects. `unit`: pure modules in Node (test/unit), fast. `workers`:
// the Workers runtime with real Durable Objects, DO SQLite and local D1; a real
// local HTTP server (test/support/fake-provider-server.ts, started in global
// setup) stands in for the model providers.
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export const TEST_TOKEN = "test-token";
export const TEST_API_KEY = "sk-test-never-logged-0123456789";

export default defineConfig(async () => {
  const d1Migrations = await readD1Migrations("./migrations/d1");
  const workers = {
    plugins: [
      cloudflareTest(({ inject }) => {
        const base = `http://127.0.0.1:${inject("fakeProviderPort")}`;
        const model = (name: string, model: string, extra: Record<string, unknown> = {}) => ({
          name,
          provider: "openai-chat",
          base_url: `${base}/v1`,
          api_key: TEST_API_KEY,
          model,
          context_window: 128000,
          ...extra,
        });
        return {
          main: "./src/worker.ts",
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: {
            bindings: {
              TEST_MIGRATIONS: d1Migrations,
              FAKE_PROVIDER_URL: base,
              BYOK_TOKEN: TEST_TOKEN,
              BYOK_ALLOW_PRIVATE_UPSTREAMS: "true",
              // Short, so the disconnect test does not wait the production 10 s.
              BYOK_DISCONNECT_GRACE_MS: "300",
              BYOK_MODELS: JSON.stringify([
                model("fake-model", "fake-1"),
                model("fake-small", "fake-2", { context_window: 32000 }),
                model("fake-responses", "fake-r", { provider: "openai-responses" }),
                model("fake-anthropic", "fake-a", { provider: "anthropic" }),
                model("fake-stall", "fake-s", { stall_timeout_ms: 1000 }),
              ]),
            },
          },
        };
      }),
    ],
    test: {
      name: "workers",
      globalSetup: ["./test/global-setup.ts"],
      setupFiles: ["./test/setup.ts"],
      include: ["test/**/*.test.ts"],
      exclude: ["test/unit/**"],
      testTimeout: 20_000,
      hookTimeout: 20_000,
    },
  };
  const unit = { test: { name: "unit", environment: "node", include: ["test/unit/**/*.test.ts"], testTimeout: 5_000 } };
  return { test: { projects: [unit, workers] } };
});
