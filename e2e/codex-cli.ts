// The real Codex CLI against a code-mode host (docs/code-mode.md#codex-cli):
// `codex app-server --code-mode-host <URL>` from the reference cache (`npm run
// codex:fetch`), driven over its stdio JSON-RPC protocol (initialize, thread/start,
// turn/start), with a throw-away CODEX_HOME whose model provider is the local fake
// OpenAI Responses provider. The provider is scripted: its first answer calls the
// `exec` tool with a cell that calls Codex's own get_goal tool (a round trip from the
// host to Codex and back) and prints a marker, its second is a final message. The check
// passes when the provider's second request carries the cell's output as the
// exec call's custom_tool_call_output, i.e. the cell ran on the host and Codex
// got its result back. Nothing leaves 127.0.0.1: Codex's proxies point at a
// refusing proxy that records every attempt, and the check requires none.
//
// Targets: the reference codex-code-mode-host directly, the same through the
// gRPC bridge (bridge/, upstream gRPC), and byok-edge under `wrangler dev`
// through the bridge (upstream Connect).
import { randomBytes, randomUUID } from "node:crypto";
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { findReferenceBinaries } from "../scripts/codex-cache.ts";
import { startReferenceHost } from "../test/differential/support/reference-host.ts";
import type { RecordedRequest } from "../test/support/fake-provider-types.ts";
import { AppServer } from "./support/codex-app-server.ts";
import { writeCodexHome } from "./support/codex-home.ts";
import { startBridgeProcess } from "./support/bridge-process.ts";
import { startRefusingProxy } from "./support/refusing-proxy.ts";
import { assistantMessage, customToolCall } from "./support/responses-script.ts";

const CALL_TIMEOUT_MS = 20_000;
const TURN_TIMEOUT_MS = 60_000;
const FEATURES_TIMEOUT_MS = 20_000;
const FINAL_TEXT = "The cell ran.";
/** What the cell prints before the answer of Codex's own get_goal tool. */
const GOAL_PREFIX = "get_goal answered: ";
/**
 * Codex 0.169's switch for code mode. It is "under development" and off by default;
 * without it the model is not offered `exec` at all and Codex answers an exec call
 * with "unsupported custom tool call: exec" (the control run shows both).
 * code_mode_host and code_mode_host_grpc, which make --code-mode-host use a remote
 * gRPC host, are stable and on by default; code_mode_only (exec as the only
 * top-level tool) is not needed.
 */
const FEATURE_ARGS = ["--enable", "code_mode"];
/** The `codex features list` lines the check prints. */
const SHOWN_FEATURES = new Set(["code_mode", "code_mode_host", "code_mode_host_grpc", "code_mode_only"]);

type Check = (name: string, body: () => Promise<void>) => Promise<void>;

export interface CodexCliOptions {
  check: Check;
  /** The fake provider (test/support/fake-provider-server.ts) of this e2e run. */
  providerBase: string;
  workDir: string;
  /** byok-edge's `wrangler dev` and its user token, when it serves CodeModeHost. */
  edge?: { baseUrl: string; token: string };
}

interface CellRun {
  codex: string;
  hostUrl: string;
  providerBase: string;
  workDir: string;
  marker: string;
  /** false: the control run without the feature switch. */
  codeMode: boolean;
}

interface CellRunResult {
  requests: RecordedRequest[];
  toolsOffered: string[];
  /** The second request's output for the exec call: texts, in order. */
  execOutput: string[];
  finalText: string | undefined;
  outboundAttempts: string[];
  serverRequests: string[];
  featureLines: string[];
}

/** The Codex CLI checks of `npm run e2e`; skipped, with one line, when the reference cache is empty. */
export async function checkCodexCli(options: CodexCliOptions): Promise<void> {
  const binaries = findReferenceBinaries();
  if (!binaries) {
    console.log("SKIP  the Codex CLI checks: no codex binary in .cache/codex (run `npm run codex:fetch`)");
    return;
  }
  const runDir = (name: string) => {
    const dir = join(options.workDir, "codex", name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const base = { codex: binaries.codex, providerBase: options.providerBase };
  const reference = await startReferenceHost(binaries.host);
  try {
    await options.check("the Codex CLI runs a cell on the reference code-mode host and sends its output to the model", async () => {
      const result = await runCell({
        ...base,
        hostUrl: reference.baseUrl,
        workDir: runDir("reference"),
        marker: marker("reference host"),
        codeMode: true,
      });
      printFeatures(result);
    });
    await options.check("without --enable code_mode the Codex CLI offers no exec tool", async () => {
      await runCell({ ...base, hostUrl: reference.baseUrl, workDir: runDir("control"), marker: marker("nowhere"), codeMode: false });
    });
    await options.check("the Codex CLI runs a cell on the reference host through the gRPC bridge", async () => {
      const bridge = await startBridgeProcess(reference.baseUrl, "grpc");
      try {
        await runCell({
          ...base,
          hostUrl: bridge.url,
          workDir: runDir("bridge-reference"),
          marker: marker("reference host via the bridge"),
          codeMode: true,
        });
        assertForwarded(bridge.calls());
      } finally {
        await bridge.stop();
      }
    });
  } finally {
    await reference.stop();
  }
  const edge = options.edge;
  if (edge) {
    await options.check("the Codex CLI runs a cell on byok-edge through the gRPC bridge", async () => {
      const bridge = await startBridgeProcess(edge.baseUrl, "connect", edge.token);
      try {
        await runCell({ ...base, hostUrl: bridge.url, workDir: runDir("bridge-edge"), marker: marker("byok-edge"), codeMode: true });
        assertForwarded(bridge.calls());
        assert(!bridge.output().includes(edge.token), "the bridge printed the token");
      } finally {
        await bridge.stop();
      }
    });
  }
}

async function runCell(run: CellRun): Promise<CellRunResult> {
  const scenarioId = `codex-${randomUUID()}`;
  const callId = `call_${randomBytes(6).toString("hex")}`;
  // A nested tool call too: the host sends it to Codex over SubscribeToToolCalls, Codex answers with CompleteToolCall.
  const source = `const goal = await tools.get_goal({});\ntext(${JSON.stringify(run.marker)});\ntext("${GOAL_PREFIX}" + JSON.stringify(goal));`;
  await providerCall(`${run.providerBase}/__scenarios/${scenarioId}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ responses: [customToolCall("resp_1", callId, "exec", source), assistantMessage("resp_2", FINAL_TEXT)] }),
  });
  const proxy = await startRefusingProxy();
  const apiKey = `sk-codex-e2e-${randomBytes(8).toString("hex")}`;
  const home = writeCodexHome({ dir: run.workDir, providerBaseUrl: run.providerBase, scenarioId, apiKey, proxyUrl: proxy.url });
  const features = run.codeMode ? FEATURE_ARGS : [];
  const server = new AppServer({
    binary: run.codex,
    args: ["--code-mode-host", run.hostUrl, "--strict-config", ...features],
    env: home.env,
    cwd: run.workDir,
  });
  try {
    await server.request(
      "initialize",
      {
        clientInfo: { name: "byok-edge-e2e", title: null, version: "1" },
        capabilities: { experimentalApi: true, requestAttestation: false },
      },
      CALL_TIMEOUT_MS,
    );
    server.notify("initialized");
    const started = await server.request<{ thread: { id: string } }>(
      "thread/start",
      // Not ephemeral: Codex's goal tools need a persisted thread (its rollout goes in the temp CODEX_HOME).
      { cwd: run.workDir, approvalPolicy: "never", sandbox: "read-only", ephemeral: false },
      CALL_TIMEOUT_MS,
    );
    const threadId = started.thread.id;
    await server.request("turn/start", { threadId, input: [{ type: "text", text: "Run the cell.", text_elements: [] }] }, CALL_TIMEOUT_MS);
    const completed = await server.waitFor("turn/completed", (n) => n.method === "turn/completed", TURN_TIMEOUT_MS);
    const turn = (completed.params as { turn: { status: string; error: unknown; items: { type: string; text?: string }[] } }).turn;
    assert(turn.status === "completed", `the turn ended ${turn.status}: ${JSON.stringify(turn.error)}`);

    const requests = await recordedRequests(run.providerBase, scenarioId, 2);
    const result = inspect(requests, callId, turn.items, proxy.attempts(), server.serverRequests);
    result.featureLines = run.codeMode ? await featureLines(run.codex, home.env, run.workDir) : [];
    assert(requests[0]!.headers.authorization === `Bearer ${apiKey}`, "the fake provider did not get the configured key");
    assert(result.outboundAttempts.length === 0, `Codex tried to leave 127.0.0.1: ${result.outboundAttempts.join(", ")}`);
    assert(result.serverRequests.length === 0, `Codex asked the client for ${result.serverRequests.join(", ")}`);
    if (run.codeMode) {
      assert(result.toolsOffered.includes("custom:exec"), `exec was not offered: ${result.toolsOffered.join(", ")}`);
      assert(
        result.execOutput[0]?.startsWith("Script completed"),
        `the exec output does not start with the header: ${JSON.stringify(result.execOutput)}`,
      );
      assert(
        result.execOutput.includes(run.marker),
        `the cell's output is not in the second request: ${JSON.stringify(result.execOutput)}`,
      );
      assert(result.finalText === FINAL_TEXT, `the final message was ${JSON.stringify(result.finalText)}`);
    } else {
      assert(!result.toolsOffered.includes("custom:exec"), "exec was offered without the feature switch");
      assert(
        result.execOutput.join("") === "unsupported custom tool call: exec",
        `the call's output was ${JSON.stringify(result.execOutput)}`,
      );
    }
    console.log(`      tools offered: ${result.toolsOffered.join(" ")}`);
    console.log(`      exec output in request 2: ${JSON.stringify(result.execOutput)}`);
    return result;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- codex app-server log tail ---\n${server.stderrTail()}`);
  } finally {
    await server.stop();
    await proxy.close();
  }
}

function inspect(
  requests: RecordedRequest[],
  callId: string,
  items: { type: string; text?: string }[],
  outboundAttempts: string[],
  serverRequests: string[],
): CellRunResult {
  const first = JSON.parse(requests[0]!.body) as { tools?: { type: string; name?: string }[] };
  const second = JSON.parse(requests[1]!.body) as { input?: { type: string; call_id?: string; output?: unknown }[] };
  const output = second.input?.find((item) => item.type === "custom_tool_call_output" && item.call_id === callId)?.output;
  const execOutput =
    typeof output === "string"
      ? [output]
      : Array.isArray(output)
        ? output.map((part: { text?: string }) => part.text ?? JSON.stringify(part))
        : [];
  return {
    requests,
    toolsOffered: (first.tools ?? []).map((tool) => `${tool.type}:${tool.name ?? ""}`),
    execOutput,
    finalText: items.find((item) => item.type === "agentMessage")?.text,
    outboundAttempts,
    serverRequests,
    featureLines: [],
  };
}

/** `codex features list` with the run's config and switches: the code_mode* lines (name, stage, effective). */
async function featureLines(codex: string, env: NodeJS.ProcessEnv, cwd: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(codex, ["features", "list", ...FEATURE_ARGS], { env, cwd, timeout: FEATURES_TIMEOUT_MS });
  return stdout
    .split("\n")
    .map((line) => line.trim().replace(/\s{2,}/g, "  "))
    .filter((line) => SHOWN_FEATURES.has(line.split(" ")[0]!));
}

function printFeatures(result: CellRunResult): void {
  console.log('      feature switch: --enable code_mode (Codex 0.169: stage "under development", off by default). Without it the');
  console.log('      model is offered no exec tool and an exec call gets "unsupported custom tool call: exec" (next check).');
  console.log("      code_mode_host and code_mode_host_grpc are on by default and make --code-mode-host a remote gRPC host.");
  console.log(`      codex features list --enable code_mode: ${result.featureLines.join("; ")}`);
}

function assertForwarded(calls: string[]): void {
  for (const method of ["OpenSession", "SubscribeToToolCalls", "Execute", "CompleteToolCall"]) {
    assert(calls.includes(method), `the bridge forwarded no ${method} (calls: ${calls.join(", ")})`);
  }
  console.log(`      the bridge forwarded: ${[...new Set(calls)].join(", ")}`);
}

function marker(where: string): string {
  return `cell ran on ${where} (${randomBytes(4).toString("hex")})`;
}

async function recordedRequests(providerBase: string, scenarioId: string, min: number): Promise<RecordedRequest[]> {
  const res = await providerCall(`${providerBase}/__scenarios/${scenarioId}/requests?min=${min}&timeout_ms=10000`);
  const requests = (await res.json()) as RecordedRequest[];
  assert(requests.length === min, `the fake provider got ${requests.length} request(s), expected ${min}`);
  for (const request of requests) assert(request.path === "/v1/responses", `Codex called ${request.path}`);
  return requests;
}

async function providerCall(url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  if (!res.ok) throw new Error(`fake provider ${init.method ?? "GET"} ${url} → ${res.status}: ${await res.text()}`);
  return res;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}
