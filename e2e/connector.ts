// The connector (docs/connector.md) in front of the real `wrangler dev`, as the
// Cursor app would use it: a client that trusts the connector's CA (and a
// stand-in public CA) opens `CONNECT api2.cursor.sh:443` to it and sends
// Cursor's own session token. GetServerConfig, AvailableModels and a whole
// RunSSE turn reach byok-edge with the user's token instead; an account call
// reaches a local stand-in for the real api2.cursor.sh, unchanged.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { loadOrCreateCa } from "../connector/ca.ts";
import { startConnector } from "../connector/proxy.ts";
import { AiService, Http2Config } from "../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { readAll, requestThrough, throughProxy } from "../test/support/proxy-client.ts";
import { makeStandInPki, startTlsStandIn } from "../test/support/tls-stand-in.ts";

type Check = (name: string, body: () => Promise<void>) => Promise<void>;

/** Where a Connect client sends its calls: a base URL and, through a proxy, how it connects; headers every call adds (a client address). */
export interface Route {
  baseUrl: string;
  nodeOptions?: ReturnType<typeof throughProxy> & { headers?: Record<string, string> };
}

export interface ConnectorCheckOptions {
  check: Check;
  edge: { baseUrl: string; token: string };
  /** A model the edge serves. */
  modelName: string;
  /** Runs one text turn over `route` as `token` and checks it (e2e/main.ts checkTurn). */
  turn: (route: Route, token: string) => Promise<unknown>;
}

const CURSOR_SESSION = "cursor-session-token-not-for-byok";
const CALL_TIMEOUT_MS = 15_000;
const LOG_TIMEOUT_MS = 5_000;
const HOST = "api2.cursor.sh";

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export async function checkConnector({ check, edge, modelName, turn }: ConnectorCheckOptions): Promise<void> {
  const configDir = mkdtempSync(join(tmpdir(), "byok-e2e-connector-"));
  const pki = makeStandInPki();
  const realHost = await startTlsStandIn(pki, [HOST]);
  const ca = loadOrCreateCa(configDir);
  const logLines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const onLog = (line: string) => {
    logLines.push(line);
    for (const w of waiters.filter((w) => w.pattern.test(line))) w.resolve();
  };
  // The connector logs a request when its response has been relayed, which may be just after
  // the client read the last byte; so wait for the line (bounded) instead of expecting it.
  const logged = async (pattern: RegExp): Promise<boolean> => {
    if (logLines.some((l) => pattern.test(l))) return true;
    let timer: NodeJS.Timeout | undefined;
    let waiter: { pattern: RegExp; resolve: () => void } | undefined;
    const seen = new Promise<boolean>((resolve) => {
      waiter = { pattern, resolve: () => resolve(true) };
      waiters.push(waiter);
    });
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), LOG_TIMEOUT_MS);
    });
    try {
      return await Promise.race([seen, timeout]);
    } finally {
      clearTimeout(timer);
      // Seen or timed out, it waits no more: a later line must not find it.
      const at = waiter ? waiters.indexOf(waiter) : -1;
      if (at >= 0) waiters.splice(at, 1);
    }
  };
  const connector = await startConnector({
    deploymentUrl: edge.baseUrl,
    token: edge.token,
    ca,
    port: 0,
    // Nothing may leave this machine: the real api2 is the stand-in, everything else a closed port.
    resolveUpstream: (host, port) =>
      host === HOST && port === 443 ? { host: "127.0.0.1", port: realHost.port } : { host: "127.0.0.1", port: 9 },
    upstreamCa: [pki.caPem],
    log: onLog,
  });
  const trusted = [ca.certPem, pki.caPem];
  const route: Route = { baseUrl: `https://${HOST}`, nodeOptions: throughProxy(connector.port, HOST, trusted) };
  const cursorAuth: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${CURSOR_SESSION}`);
    return next(req);
  };
  const ai = createClient(
    AiService,
    createConnectTransport({ ...route, httpVersion: "1.1", useBinaryFormat: true, interceptors: [cursorAuth] }),
  );
  try {
    await check("through the connector, GetServerConfig forces HTTP/1.1 and AvailableModels lists the model", async () => {
      const config = await ai.getServerConfig({}, { timeoutMs: CALL_TIMEOUT_MS });
      assert(config.http2Config === Http2Config.FORCE_ALL_DISABLED, `http2_config was ${Http2Config[config.http2Config]}`);
      const models = await ai.availableModels({}, { timeoutMs: CALL_TIMEOUT_MS });
      assert(models.modelNames.includes(modelName), `AvailableModels listed ${JSON.stringify(models.modelNames)}`);
      assert(realHost.requests.length === 0, "a catalogue call reached the real host");
      assert(await logged(/^POST \/aiserver\.v1\.AiService\/AvailableModels 200 /), `log: ${JSON.stringify(logLines)}`);
    });
    await check("through the connector, a RunSSE turn runs on the deployment with the user's token", async () => {
      await turn(route, CURSOR_SESSION);
      assert(await logged(/^POST \/agent\.v1\.AgentService\/RunSSE 200 /), `no RunSSE in the log: ${JSON.stringify(logLines)}`);
    });
    await check("through the connector, an account call reaches the real host unchanged", async () => {
      const body = new Uint8Array([8, 1, 16, 2]);
      const { response } = await requestThrough({
        proxyPort: connector.port,
        host: HOST,
        ca: trusted,
        path: "/aiserver.v1.DashboardService/GetMe",
        headers: { authorization: `Bearer ${CURSOR_SESSION}`, "content-type": "application/proto" },
        body,
      });
      const text = (await readAll(response)).toString();
      assert(text === "real:/aiserver.v1.DashboardService/GetMe", `the answer was ${JSON.stringify(text)}`);
      const seen = realHost.requests.at(-1);
      assert(seen?.headers.authorization === `Bearer ${CURSOR_SESSION}`, "the real host did not get Cursor's own token");
      assert(Buffer.compare(seen.body, Buffer.from(body)) === 0, "the real host got other body bytes");
      assert(!logLines.join("\n").includes(edge.token), "the log contains the user's token");
    });
  } finally {
    await connector.close();
    await realHost.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}
