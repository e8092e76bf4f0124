// A scripted stand-in for model providers, run in Node by vitest global setup.
// Tests register scenarios, steer them with gates and read the recorded requests.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type RecordedRequest,
  SCENARIO_HEADER,
  SCENARIO_ID_PATTERN,
  type ScenarioDefinition,
  type ScriptedResponse,
  type Step,
} from "./fake-provider-types.ts";
import { lowerCaseHeaders, readBody, sendJson } from "./node-http.ts";

/** Long-polls end after this unless the caller asks otherwise, so a broken test fails instead of hanging. */
const WAIT_DEFAULT_MS = 10_000;
const WAIT_MAX_MS = 60_000;
const PROVIDER_PATH = /\/(chat\/completions|responses|messages)$/;

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves true when `promise` settles first, false after `timeoutMs`. */
async function within(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

class Gate {
  readonly reached = deferred();
  readonly released = deferred();
}

class ScenarioState {
  readonly requests: RecordedRequest[] = [];
  readonly #responses: ScriptedResponse[];
  readonly #gates = new Map<string, Gate>();
  readonly #requestWaiters = new Set<{ min: number; done: Deferred }>();
  #next = 0;

  constructor(responses: ScriptedResponse[]) {
    this.#responses = responses;
  }

  gate(name: string): Gate {
    let gate = this.#gates.get(name);
    if (!gate) {
      gate = new Gate();
      this.#gates.set(name, gate);
    }
    return gate;
  }

  nextResponse(): ScriptedResponse | undefined {
    return this.#responses[this.#next++];
  }

  record(request: RecordedRequest): void {
    this.requests.push(request);
    for (const waiter of this.#requestWaiters) {
      if (this.requests.length >= waiter.min) waiter.done.resolve();
    }
  }

  async waitForRequests(min: number, timeoutMs: number): Promise<boolean> {
    if (this.requests.length >= min) return true;
    const waiter = { min, done: deferred() };
    this.#requestWaiters.add(waiter);
    try {
      return await within(waiter.done.promise, timeoutMs);
    } finally {
      this.#requestWaiters.delete(waiter);
    }
  }
}

export async function startFakeProviderServer(): Promise<{ port: number; close(): Promise<void> }> {
  const scenarios = new Map<string, ScenarioState>();
  const server = createServer((req, res) => {
    handle(req, res, scenarios).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake provider: ${String(error)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections(); // hung and gated responses would keep close() waiting
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, scenarios: Map<string, ScenarioState>): Promise<void> {
  const url = new URL(req.url ?? "/", "http://fake-provider");
  const [root, id, action, name] = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (root === "__scenarios" && id) return control(req, res, url, scenarios, { id, action, name });
  if (req.method === "POST" && PROVIDER_PATH.test(url.pathname)) return serveProvider(req, res, url, scenarios);
  sendJson(res, 404, { error: { message: `fake provider: no route for ${req.method} ${url.pathname}` } });
}

interface ControlRoute {
  id: string;
  action?: string;
  name?: string;
}

async function control(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  scenarios: Map<string, ScenarioState>,
  route: ControlRoute,
): Promise<void> {
  const { id, action, name } = route;
  if (req.method === "PUT" && action === undefined) {
    const definition = JSON.parse(await readBody(req)) as ScenarioDefinition;
    if (!Array.isArray(definition.responses)) return sendJson(res, 400, { error: { message: "responses must be an array" } });
    scenarios.set(id, new ScenarioState(definition.responses));
    return sendJson(res, 200, { id });
  }
  const scenario = scenarios.get(id);
  if (!scenario) return sendJson(res, 404, { error: { message: `fake provider: unknown scenario ${id}` } });
  const timeoutMs = Math.min(WAIT_MAX_MS, Number(url.searchParams.get("timeout_ms") ?? WAIT_DEFAULT_MS) || WAIT_DEFAULT_MS);

  if (req.method === "POST" && action === "gates" && name) {
    scenario.gate(name).released.resolve();
    return sendJson(res, 200, { released: name });
  }
  if (req.method === "GET" && action === "reached" && name) {
    const reached = await within(scenario.gate(name).reached.promise, timeoutMs);
    return sendJson(res, reached ? 200 : 408, { gate: name, reached });
  }
  if (req.method === "GET" && action === "requests") {
    const min = Number(url.searchParams.get("min") ?? 0);
    const enough = await scenario.waitForRequests(min, timeoutMs);
    return sendJson(res, enough ? 200 : 408, scenario.requests);
  }
  sendJson(res, 404, { error: { message: `fake provider: no control route ${req.method} ${url.pathname}` } });
}

async function serveProvider(req: IncomingMessage, res: ServerResponse, url: URL, scenarios: Map<string, ScenarioState>): Promise<void> {
  const body = await readBody(req);
  const headers = lowerCaseHeaders(req);
  const id = headers[SCENARIO_HEADER] ?? SCENARIO_ID_PATTERN.exec(body)?.[1];
  const scenario = id === undefined ? undefined : scenarios.get(id);
  if (!scenario) {
    return sendJson(res, 404, { error: { message: `fake provider: unknown scenario ${id ?? "(none given)"}` } });
  }
  // Recorded before responding, so a test that sees the response can also see the request.
  scenario.record({ method: req.method ?? "POST", path: url.pathname + url.search, headers, body });
  const response = scenario.nextResponse();
  if (!response) {
    return sendJson(res, 500, { error: { message: `fake provider: scenario ${id} has no more responses` } });
  }
  if (response.silent) {
    await new Promise<void>((resolve) => res.on("close", () => resolve()));
    return;
  }
  if (!response.steps) {
    res.writeHead(response.status ?? 200, { "content-type": "application/json", ...response.headers });
    res.end(response.body ?? "");
    return;
  }
  await streamSteps(res, scenario, response);
}

async function streamSteps(res: ServerResponse, scenario: ScenarioState, response: ScriptedResponse): Promise<void> {
  const clientGone = deferred();
  let gone = false;
  res.on("close", () => {
    gone = true;
    clientGone.resolve();
  });
  res.socket?.setNoDelay(true);
  res.writeHead(response.status ?? 200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    ...response.headers,
  });
  res.flushHeaders(); // the client sees headers (and measures TTFB) before the first step
  for (const step of response.steps ?? []) {
    if (gone) return;
    const proceed = await runStep(res, scenario, step, clientGone.promise);
    if (!proceed) return;
  }
  if (!gone) res.end();
}

/** Performs one step; false when the response is over (cut, or a hang the client ended). */
async function runStep(res: ServerResponse, scenario: ScenarioState, step: Step, clientGone: Promise<void>): Promise<boolean> {
  if ("data" in step) return write(res, `data: ${step.data}\n\n`);
  if ("raw" in step) return write(res, step.raw);
  if ("gate" in step) {
    const gate = scenario.gate(step.gate);
    gate.reached.resolve();
    await Promise.race([gate.released.promise, clientGone]);
    return true; // the caller checks whether the client is still there
  }
  if ("hang" in step) {
    await clientGone;
    return false;
  }
  res.socket?.destroy();
  return false;
}

/** Resolves once the bytes left the process: node corks responses, and a cut must not drop them. */
function write(res: ServerResponse, text: string): Promise<boolean> {
  return new Promise((resolve) => res.write(text, (error) => resolve(!error)));
}
