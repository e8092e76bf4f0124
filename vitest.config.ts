// Six vitest projects. `unit`: pure modules in Node (test/unit), fast. `fuzz`:
// property-based fuzzing of the pure decoders and parsers in Node (test/fuzz). `node`:
// the Node programs beside the worker (test/node: the connector), with real
// sockets, TLS and files. `workers`:
// the Workers runtime with real Durable Objects, DO SQLite and local D1; a real
// local HTTP server (test/support/fake-provider-server.ts, started in global
// setup) stands in for the model providers, another (fake-search-server.ts) for
// the web search backend; test/workers/cursor/faults is its fault suite
// (docs/testing.md#fault-suite). `continuation`: the same runtime with the
// production continuation window (2 s), which `workers` turns off so that its
// streams end as soon as their turn does. `differential`: code mode's differential suite in Node
// (test/differential, docs/code-mode.md#differential-suite), the same scenarios
// against the reference codex-code-mode-host and byok-edge under `wrangler dev`.
//
// `npm test` takes about 2 min on this 2-core machine in a clean clone, 2½–3 min under load
// (docs/testing.md#run-time).
// Two files run at a time, queued by `ProjectOrder`. The workers and continuation projects
// share one workerd runner per vitest worker across files (`isolate: false`), so D1 rows,
// Durable Object storage and module state outlive a file: a test makes its own rows with fresh
// ids and never relies on an empty table (docs/testing.md#shared-runners). The differential
// suite runs each file's scenarios concurrently (tools.test.ts's one at a time).
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const TEST_TOKEN = "test-token";
/** The operator's token in tests (test/support/admin-client.ts). */
const TEST_ADMIN_TOKEN = "test-admin-token";
export const TEST_API_KEY = "sk-test-never-logged-0123456789";
/** KEY_ENCRYPTION_KEY and, as if mid-rotation, KEY_ENCRYPTION_KEY_PREVIOUS (test/workers/hosting/rewrap.test.ts reads them from env). */
const TEST_KEKS = { current: "pvcbkQrpcK2xsTIVC2XGamBlTyZiYGK0JaxFubadoM0=", previous: "y0dNwYfc+OrjDIFjMXLmHuw4ZDhKO9/FLskZo8UMOE8=" };
const TEST_SEARCH_KEY = "tvly-test-search-key-never-logged-42";
/** Short, so the search timeout test does not wait the production 10 s. */
const TEST_SEARCH_TIMEOUT_MS = 2000;

/** The order the projects' files are queued in (vitest's own is by project name). */
const PROJECT_ORDER = ["continuation", "differential", "workers", "node", "fuzz", "unit"];
/** Real 10–11 s timers, each bounded to 800 ms late. */
const YIELD_TIMER_FILE = "/test/differential/code-mode/yield-timer.test.ts";

/**
 * Within a project, files keep vitest's order (failed, then slowest last time, else largest,
 * first). `continuation` starts first, so that its runner's cold start (transforming the worker's
 * module graph, which the workers project then finds cached) overlaps the differential suite,
 * which mostly waits on timers. The yield-timer scenario heads the differential suite in every
 * checkout (without timings a clean clone would queue it last, by size): its cells then start
 * beside that one runner, not beside fuzzing, key generation or the workers project's two
 * runners (a cell started 1 s late with three files starting beside it). The workers project's
 * files stay together, so its runners are never stopped between them.
 */
class ProjectOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) =>
      PROJECT_ORDER.indexOf(spec.project.name) - (spec.moduleId.endsWith(YIELD_TIMER_FILE) ? 0.5 : 0);
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig(async () => {
  const d1Migrations = await readD1Migrations("./migrations/d1");
  const workersProject = (name: string, include: string[], exclude: string[], vars: Record<string, string>) => ({
    plugins: [
      cloudflareTest(({ inject }) => {
        const base = `http://127.0.0.1:${inject("fakeProviderPort")}`;
        const searchBase = `http://127.0.0.1:${inject("fakeSearchPort")}`;
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
            // A small stand-in for TOKEN_CALLS (1,000 in 10 s), which a loaded 2-core machine cannot
            // reach within one window: test/workers/hosting/rate-limits.test.ts hands it to the worker
            // in TOKEN_CALLS's place to see a token's calls refused past its limit.
            ratelimits: { SMALL_TOKEN_CALLS: { namespace_id: "2199", simple: { limit: 40, period: 60 } } },
            bindings: {
              TEST_MIGRATIONS: d1Migrations,
              FAKE_PROVIDER_URL: base,
              FAKE_SEARCH_URL: searchBase,
              OTLP_RECEIVER_URL: `http://127.0.0.1:${inject("otlpReceiverPort")}`,
              BYOK_TOKEN: TEST_TOKEN,
              ADMIN_TOKEN: TEST_ADMIN_TOKEN,
              METRICS_TOKEN: "test-metrics-token",
              KEY_ENCRYPTION_KEY: TEST_KEKS.current,
              KEY_ENCRYPTION_KEY_PREVIOUS: TEST_KEKS.previous,
              BYOK_ALLOW_PRIVATE_UPSTREAMS: "true",
              // Short, so the disconnect test does not wait the production 10 s.
              BYOK_DISCONNECT_GRACE_MS: "300",
              // Short, so a client that never sends its request context fails the run quickly.
              BYOK_CONTEXT_TIMEOUT_MS: "2000",
              // Short, so a summary call that never answers gives way to the fallback within a test.
              BYOK_COMPACTION_TIMEOUT_MS: "4000",
              ...vars,
              BYOK_MODELS: JSON.stringify([
                model("fake-model", "fake-1"),
                model("fake-small", "fake-2", { context_window: 32000 }),
                model("fake-responses", "fake-r", { provider: "openai-responses" }),
                model("fake-anthropic", "fake-a", { provider: "anthropic" }),
                model("fake-stall", "fake-s", { stall_timeout_ms: 1000 }),
                // Falls back to fake-small, then fake-model (test/workers/provider/fallbacks.test.ts).
                model("fake-fallback", "fake-f", { context_window: 32000, fallbacks: ["fake-small", "fake-model"] }),
                // Summarized by fake-model, its subagents on fake-small (test/workers/cursor/model-roles.test.ts).
                model("fake-roles", "fake-ro", { context_window: 32000, compaction_model: "fake-model", subagent_model: "fake-small" }),
                // Takes no images; fake-model describes them (test/workers/cursor/model-roles.test.ts).
                model("fake-text", "fake-t", { vision: false, image_model: "fake-model" }),
              ]),
              // Search is configured for the whole project; its absence is unit-tested (test/unit/cursor/offered-tools.test.ts).
              BYOK_SEARCH: JSON.stringify({
                provider: "tavily",
                base_url: searchBase,
                api_key: TEST_SEARCH_KEY,
                max_results: 3,
                timeout_ms: TEST_SEARCH_TIMEOUT_MS,
              }),
            },
          },
        };
      }),
    ],
    test: {
      name,
      globalSetup: ["./test/global-setup.ts"],
      setupFiles: ["./test/setup.ts"],
      include,
      exclude,
      testTimeout: 20_000,
      hookTimeout: 20_000,
      // One workerd runner per vitest worker, reused for every file it runs (the plugin's
      // `isolate: false`): D1 rows, DO storage and module state are not reset between files,
      // so every test makes its own teams, users, conversations and ids (docs/testing.md#shared-runners).
      isolate: false,
    },
  });
  const workers = workersProject("workers", ["test/workers/**/*.test.ts"], [], {
    BYOK_CONTINUATION_WINDOW_MS: "0",
  });
  // The production continuation window, and a short request TTL (test/continuation/cursor/idle-release.test.ts).
  const continuation = workersProject("continuation", ["test/continuation/**/*.test.ts"], [], { BYOK_REQUEST_TTL_MS: "4000" });
  // Pure modules: the files share one Node worker (no module state, mocks or globals to reset).
  const unit = { test: { name: "unit", environment: "node", include: ["test/unit/**/*.test.ts"], testTimeout: 5_000, isolate: false } };
  // Property-based fuzzing of the pure decoders and parsers, a bounded number of cases each
  // (docs/testing.md#fuzzing); `npm run fuzz` runs the same properties for longer.
  const fuzz = { test: { name: "fuzz", environment: "node", include: ["test/fuzz/**/*.test.ts"], testTimeout: 30_000 } };
  // Node programs beside the worker that need real sockets and files (the connector).
  const node = { test: { name: "node", environment: "node", include: ["test/node/**/*.test.ts"], testTimeout: 20_000 } };
  const differential = {
    test: {
      name: "differential",
      environment: "node",
      include: ["test/differential/**/*.test.ts"],
      globalSetup: ["./test/differential/global-setup.ts"],
      testTimeout: 40_000,
      hookTimeout: 90_000,
    },
  };
  // Two files at a time, whatever the core count (vitest's default is one fewer than the cores,
  // so one on this 2-core machine): most of a file's time is waiting on its runtime, the fake
  // provider or a real timer, not CPU.
  // A run asked to shuffle its files (docs/testing.md#shared-runners) keeps vitest's random order.
  const shuffled = process.argv.some((arg) => arg.startsWith("--sequence.shuffle"));
  return {
    test: {
      // The worker's structured log lines (docs/telemetry.md#logs), one per request and run, would
      // bury the output; test/workers/telemetry/logs.test.ts reads them with a spy instead.
      // workerd's output may come with colour codes before the line, so the line is found anywhere.
      // A root option: vitest does not read it from a project.
      onConsoleLog: (log: string) => !/\{"message":"(request|run)"/.test(log),
      maxWorkers: 2,
      sequence: shuffled ? {} : { sequencer: ProjectOrder },
      projects: [unit, fuzz, node, workers, continuation, differential],
    },
  };
});
