// End-to-end check of byok-edge as a real process: the fake provider server
// (test/support) in this Node process, the worker in `wrangler dev`, and a
// standard Connect client (connect-node) speaking binary Connect over HTTP/1.1.
//
// Checks:
//  1. a text turn: RunSSE + BidiAppend(run_request) → the scripted text as
//     text deltas, one turn_ended, a clean end of stream, and the provider saw
//     the configured upstream model and key;
//  2. a wrong bearer token → ConnectError Unauthenticated on a unary call;
//  3. AvailableModels lists the configured model with its context_token_limit;
//  4. the turn's usage row reached D1 (the local migrations were applied), and a spinning cell
//     and an allocating cell do not stop other sessions' cells or turns (e2e/runaway-cells.ts);
//  5. two teams on the same server, each with its own key (e2e/two-teams.ts), then the hosted
//     security story across two more: the audit log per team, sealed header values, a team
//     budget, the rate limit on guessed tokens, a data-key rotation (e2e/security-story.ts);
//  6. the connector in front of it, as the Cursor app uses it: catalogue calls and
//     a turn reach byok-edge with the user's token, an account call a stand-in
//     for api2.cursor.sh (e2e/connector.ts);
//  7. the dashboard in headless Chromium: sign in, credentials, models and their
//     tests, a turn seen in Runs and Usage, tokens, revoking and being signed out,
//     axe-core on every page (e2e/dashboard.ts);
//  8. the real Codex CLI runs a code-mode cell on a host, through the gRPC bridge
//     too (e2e/codex-cli.ts; skipped without `npm run codex:fetch`);
//  8b. single sign-on with a real OIDC provider: a person signs in to the dashboard, issues a
//     token in one click and runs a turn; the connector logs in through the browser (e2e/sign-on.ts);
//  9. a new user's first `npm run dev` with no .dev.vars: it writes one and prints the
//     token; sign in, add a local server and a model, test it, run a turn (e2e/first-run.ts).
// Prints "N passed, M failed" last; exits 0 only when all passed.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { AiService } from "../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { toHex } from "../src/core/bytes.ts";
import { startFakeProviderServer } from "../test/support/fake-provider-server.ts";
import type { RecordedRequest } from "../test/support/fake-provider-types.ts";
import { runTurn } from "./support/agent-turn.ts";
import { checkCodexCli } from "./codex-cli.ts";
import { checkConnector, type Route } from "./connector.ts";
import { checkDashboard } from "./dashboard.ts";
import { checkFirstRun } from "./first-run.ts";
import { checkRunawayCells, E2E_CELL_CPU_CAP_MS } from "./runaway-cells.ts";
import { checkSecurityStory } from "./security-story.ts";
import { checkSignOn } from "./sign-on.ts";
import { startOidcIdp } from "../test/support/oidc-idp.ts";
import { IDP_CLIENT } from "../test/support/sign-on-clients.ts";
import { checkTwoTeams } from "./two-teams.ts";
import {
  installExitHandlers,
  isExiting,
  makeTempDir,
  onCleanup,
  removeTempDir,
  runCleanups,
  runWrangler,
  startWranglerDev,
  type WranglerDev,
} from "./support/wrangler-dev.ts";

const MODEL_NAME = "e2e-model";
const UPSTREAM_MODEL = "fake-upstream-model";
const CONTEXT_WINDOW = 131_072;
const TEXT_PARTS = ["Hello", " from", " the", " edge", "!"];
const CALL_TIMEOUT_MS = 15_000;
/** The identity provider's name on the dashboard's sign-in button. */
const IDP_NAME = "Test IdP";

interface CheckResult {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

const results: CheckResult[] = [];

/** `npm run e2e -- --only=TEXT`: only the checks whose name holds TEXT (while working on one). */
const ONLY = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length);

async function check(name: string, body: () => Promise<void>): Promise<void> {
  if (ONLY !== undefined && !name.includes(ONLY)) return;
  const start = performance.now();
  try {
    await body();
    results.push({ name, ok: true, ms: performance.now() - start });
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    results.push({ name, ok: false, ms: performance.now() - start, error: message });
  }
  const r = results[results.length - 1]!;
  console.log(
    `${r.ok ? "PASS" : "FAIL"}  ${r.name} (${r.ms.toFixed(0)} ms)${r.error ? `\n      ${r.error.replace(/\n/g, "\n      ")}` : ""}`,
  );
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function bearer(token: string): Interceptor {
  return (next) => async (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
}

/** The catalogue client (a turn's own clients are in e2e/support/agent-turn.ts). */
function clients(route: Route, token: string) {
  const transport = createConnectTransport({ ...route, httpVersion: "1.1", useBinaryFormat: true, interceptors: [bearer(token)] });
  return { ai: createClient(AiService, transport) };
}

async function providerCall(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`fake provider ${init.method ?? "GET"} ${url} → ${res.status}: ${await res.text()}`);
  return res;
}

/** One turn (e2e/support/agent-turn.ts), asserted. `route`: where the client sends its calls (default: straight to `wrangler dev`; e2e/connector.ts: through the connector). */
async function checkTurn(
  dev: WranglerDev,
  token: string,
  providerBase: string,
  /** undefined: a credential without a key, so no key header. */
  apiKey: string | undefined,
  model = MODEL_NAME,
  route: Route = { baseUrl: dev.baseUrl },
  /** Headers the provider's request must carry with exactly these values (a stored model's sealed ones). */
  upstreamHeaders: Record<string, string> = {},
): Promise<string> {
  const turn = await runTurn({
    route,
    token,
    model,
    providerBase,
    parts: TEXT_PARTS,
    usage: { prompt: 21, completion: TEXT_PARTS.length },
    upstreamModel: UPSTREAM_MODEL,
    prompt: "Say hello.",
  });
  const { updates, text, received } = turn;
  const turnEnded = updates.filter((u) => u.case === "turnEnded");
  const summary = `updates: ${updates.map((u) => u.case).join(", ")}`;
  assert(
    text === TEXT_PARTS.join(""),
    `text deltas were ${JSON.stringify(text)}, expected ${JSON.stringify(TEXT_PARTS.join(""))}; ${summary}`,
  );
  assert(turnEnded.length === 1, `expected exactly one turn_ended, saw ${turnEnded.length}; ${summary}`);
  const lastUpdate = updates.at(-1);
  assert(lastUpdate?.case === "turnEnded", `turn_ended was not the last update; ${summary}`);

  const requests = (await (
    await providerCall(`${providerBase}/__scenarios/${turn.scenarioId}/requests?min=1&timeout_ms=5000`)
  ).json()) as RecordedRequest[];
  assert(requests.length === 1, `the provider got ${requests.length} requests, expected 1`);
  const upstream = requests[0]!;
  assert(upstream.path === "/v1/chat/completions", `provider path was ${upstream.path}`);
  const expectedAuth = apiKey === undefined ? undefined : `Bearer ${apiKey}`;
  if (apiKey === undefined) {
    const keyHeaders = ["api-key", "x-api-key", "x-goog-api-key"].filter((h) => upstream.headers[h] !== undefined);
    assert(keyHeaders.length === 0, `a keyless credential's call carried ${keyHeaders.join(", ")}`);
  }
  assert(
    upstream.headers.authorization === expectedAuth,
    `the provider's authorization was not ${apiKey === undefined ? "absent" : "the configured key"}`,
  );
  for (const [name, value] of Object.entries(upstreamHeaders)) {
    const seen = upstream.headers[name.toLowerCase()];
    assert(seen === value, `the provider's ${name} header was ${seen === undefined ? "absent" : "not the stored value"}`);
  }
  const body = JSON.parse(upstream.body) as { model?: string; stream?: boolean };
  assert(body.model === UPSTREAM_MODEL, `provider request model was ${body.model}, expected ${UPSTREAM_MODEL}`);
  assert(body.stream === true, "provider request was not streaming");
  const kinds = [...new Set(received.map((m) => m.message.case))].join(", ");
  console.log(`      ${received.length} messages (${kinds}); ${turn.blobs} blob(s) acknowledged; text ${JSON.stringify(text)}`);
  console.log(`      ${summary}`);
  return turn.conversationId;
}

async function checkWrongToken(dev: WranglerDev): Promise<void> {
  const { ai } = clients({ baseUrl: dev.baseUrl }, "wrong-token");
  try {
    await ai.availableModels({}, { timeoutMs: CALL_TIMEOUT_MS });
  } catch (error) {
    const err = ConnectError.from(error);
    assert(err.code === Code.Unauthenticated, `expected Unauthenticated, got ${Code[err.code]}: ${err.message}`);
    return;
  }
  throw new Error("AvailableModels with a wrong token succeeded");
}

async function checkAvailableModels(dev: WranglerDev, token: string): Promise<void> {
  const { ai } = clients({ baseUrl: dev.baseUrl }, token);
  const res = await ai.availableModels({}, { timeoutMs: CALL_TIMEOUT_MS });
  const model = res.models.find((m) => m.name === MODEL_NAME);
  assert(model, `AvailableModels did not list ${MODEL_NAME}: ${JSON.stringify(res.modelNames)}`);
  assert(model.contextTokenLimit === CONTEXT_WINDOW, `context_token_limit was ${model.contextTokenLimit}, expected ${CONTEXT_WINDOW}`);
  assert(res.modelNames.length === 1, `expected exactly the configured model, got ${JSON.stringify(res.modelNames)}`);
}

/** Usage is written best-effort after the run (waitUntil), so this polls, bounded. */
async function checkUsageRecorded(workDir: string, conversationId: string): Promise<void> {
  const deadline = performance.now() + 15_000;
  const sql = `SELECT model, status, input_tokens, output_tokens FROM usage WHERE conversation_id = '${conversationId}'`;
  for (;;) {
    const out = await runWrangler(
      ["d1", "execute", "byok-edge", "--local", "--persist-to", `${workDir}/state`, "--json", "--command", sql],
      workDir,
      15_000,
    );
    const rows = (JSON.parse(out.slice(out.indexOf("["))) as { results: Record<string, unknown>[] }[])[0]?.results ?? [];
    if (rows.length > 0) {
      assert(rows.length === 1, `expected one usage row, got ${rows.length}`);
      const row = rows[0]!;
      assert(row.model === MODEL_NAME, `usage model was ${String(row.model)}`);
      assert(row.input_tokens === 21 && row.output_tokens === TEXT_PARTS.length, `usage tokens were ${JSON.stringify(row)}`);
      return;
    }
    if (performance.now() > deadline) throw new Error("no usage row in D1 for the turn");
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  installExitHandlers();
  const workDir = makeTempDir("byok-e2e");
  let keepWorkDir = false; // kept on failure, for the whole wrangler log
  onCleanup(() => {
    if (!keepWorkDir) removeTempDir(workDir);
  });

  const provider = await startFakeProviderServer();
  onCleanup(() => provider.close());
  const idp = await startOidcIdp();
  onCleanup(() => idp.close());
  const providerBase = `http://127.0.0.1:${provider.port}`;

  const token = toHex(randomBytes(24));
  const adminToken = toHex(randomBytes(24));
  const apiKey = `sk-e2e-${toHex(randomBytes(8))}`;
  const models = [
    {
      name: MODEL_NAME,
      provider: "openai-chat",
      base_url: `${providerBase}/v1`,
      api_key: apiKey,
      model: UPSTREAM_MODEL,
      context_window: CONTEXT_WINDOW,
    },
  ];

  let dev: WranglerDev | undefined;
  try {
    dev = await startWranglerDev({
      workDir,
      migrateD1: true,
      cellHost: { cpuCapMs: E2E_CELL_CPU_CAP_MS },
      vars: {
        BYOK_TOKEN: token,
        BYOK_MODELS: JSON.stringify(models),
        BYOK_ALLOW_PRIVATE_UPSTREAMS: "true",
        ADMIN_TOKEN: adminToken,
        KEY_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: IDP_CLIENT.id,
        OIDC_CLIENT_SECRET: IDP_CLIENT.secret,
        OIDC_PROVIDER_NAME: IDP_NAME,
      },
    });
    await idp.allowRedirect(`${dev.baseUrl}/auth/oidc/callback`);
    const readyMs = performance.now() - started;
    console.log(`wrangler dev ready on ${dev.baseUrl} after ${(readyMs / 1000).toFixed(1)} s (fake provider on :${provider.port})`);

    let conversationId: string | undefined;
    await check("a text turn streams the scripted text, one turn_ended and a clean end", async () => {
      conversationId = await checkTurn(dev!, token, providerBase, apiKey);
    });
    await check("a wrong bearer token gets Unauthenticated", () => checkWrongToken(dev!));
    await check("AvailableModels lists the model with its context_token_limit", () => checkAvailableModels(dev!, token));
    await check("the turn's usage row is in D1", async () => {
      assert(conversationId, "no turn ran");
      await checkUsageRecorded(workDir, conversationId);
    });
    await check("a spinning cell and an allocating cell end terminated while another session's cell and a Cursor turn complete", () =>
      checkRunawayCells({ baseUrl: dev!.baseUrl, token, turn: () => checkTurn(dev!, token, providerBase, apiKey) }),
    );
    await check("two teams on one server each run a turn with their own key", () =>
      checkTwoTeams(dev!.baseUrl, adminToken, providerBase, UPSTREAM_MODEL, (t, m, k) => checkTurn(dev!, t, providerBase, k, m)),
    );
    await check(
      "two teams on one server keep their audit logs apart and free of secrets, seal header values, end runs past a team budget, refuse a flood of guessed tokens while a known one works, and keep running after a data-key rotation",
      () =>
        checkSecurityStory({
          baseUrl: dev!.baseUrl,
          adminToken,
          providerBase,
          upstreamModel: UPSTREAM_MODEL,
          turn: (t, m, k, extras) => {
            const from = extras?.clientAddress;
            const route = { baseUrl: dev!.baseUrl, ...(from !== undefined && { nodeOptions: { headers: { "cf-connecting-ip": from } } }) };
            return checkTurn(dev!, t, providerBase, k, m, route, extras?.upstreamHeaders);
          },
        }),
    );
    await checkConnector({
      check,
      edge: { baseUrl: dev.baseUrl, token },
      modelName: MODEL_NAME,
      turn: (route, cursorToken) => checkTurn(dev!, cursorToken, providerBase, apiKey, MODEL_NAME, route),
    });
    await checkDashboard({
      check,
      baseUrl: dev.baseUrl,
      adminToken,
      providerBase,
      upstreamModel: UPSTREAM_MODEL,
      turn: (t, m, k) => checkTurn(dev!, t, providerBase, k, m),
    });
    await checkSignOn({
      check,
      baseUrl: dev.baseUrl,
      adminToken,
      providerBase,
      upstreamModel: UPSTREAM_MODEL,
      providerName: IDP_NAME,
      turn: (t, m, k) => checkTurn(dev!, t, providerBase, k, m),
    });
    await checkCodexCli({ check, providerBase, workDir, edge: { baseUrl: dev.baseUrl, token } });
    await checkFirstRun({
      check,
      providerBase,
      upstreamModel: UPSTREAM_MODEL,
      turn: (baseUrl, t, m, k) => checkTurn(dev!, t, providerBase, k, m, { baseUrl }),
    });
  } catch (error) {
    results.push({ name: "setup", ok: false, ms: 0, error: error instanceof Error ? error.message : String(error) });
    console.log(`FAIL  setup\n      ${String(error instanceof Error ? error.message : error).replace(/\n/g, "\n      ")}`);
  }

  const failed = results.filter((r) => !r.ok).length;
  const passed = results.length - failed;
  if (dev) {
    await dev.stop(); // wrangler prints request lines late; stopping flushes them
    const log = dev.log();
    const problems = log.split("\n").filter((l) => /byok-edge: (request failed|could not record usage)|✘|\[ERROR\]/.test(l));
    if (problems.length > 0) console.log(`warning: wrangler log has ${problems.length} error line(s):\n  ${problems.join("\n  ")}`);
    if (failed > 0)
      console.log(`--- wrangler log tail (whole log kept in ${dev.logFile}) ---\n${dev.tail(60)}\n--- end of wrangler log ---`);
  }
  keepWorkDir = failed > 0 && !isExiting();
  await runCleanups();
  console.log(`e2e took ${((performance.now() - started) / 1000).toFixed(1)} s`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed === 0 && passed > 0 ? 0 : 1;
}

process.exit(await main());
