// The connector's proxy (connector/proxy.ts, docs/connector.md#what-goes-where),
// with real sockets: a local HTTP server stands in for the deployment, a local
// HTTPS server with its own "public" CA for the real Cursor host and for any
// other host. The client trusts the connector's CA and the stand-in's, as the OS would.
import { once } from "node:events";
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type CertificateAuthority, loadOrCreateCa } from "../../../connector/ca.ts";
import { type Connector, startConnector } from "../../../connector/proxy.ts";
import { deferred, withTimeout } from "../../support/deferred.ts";
import { readAll, requestThrough, tlsThrough } from "../../support/proxy-client.ts";
import { makeStandInPki, type StandInPki, startTlsStandIn, type TlsStandIn } from "../../support/tls-stand-in.ts";

const USER_TOKEN = "byok_user-token-for-tests";
const CURSOR_AUTH = "Bearer cursor-session-token";
const WAIT_MS = 10_000;

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

interface Deployment {
  port: number;
  seen: { method: string; path: string; headers: IncomingMessage["headers"]; body: Buffer }[];
  handle: Handler;
  close(): Promise<void>;
}

/** The deployment stand-in: records each request, then hands it to `handle` (a test may replace it). */
async function startDeployment(): Promise<Deployment> {
  const deployment: Deployment = {
    port: 0,
    seen: [],
    handle: (_req, res) => res.writeHead(200, { "content-type": "application/proto" }).end("deployment"),
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    deployment.seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
    deployment.handle(req, res, body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  deployment.port = (server.address() as AddressInfo).port;
  deployment.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return deployment;
}

let configDir: string;
let ca: CertificateAuthority;
let pki: StandInPki;
let realHost: TlsStandIn;
let otherHost: TlsStandIn;
let plainHost: Server;
let deployment: Deployment;
let connector: Connector;
let logLines: string[] = [];
/** Settles at the next routed request's log line. */
let logged = deferred();
let trusted: string[];

async function startWith(deploymentUrl: string): Promise<Connector> {
  return startConnector({
    deploymentUrl,
    token: USER_TOKEN,
    ca,
    port: 0,
    resolveUpstream: (host, port) => {
      if (host === "api2.cursor.sh" && port === 443) return { host: "127.0.0.1", port: realHost.port };
      if (host === "other.example" && port === 443) return { host: "127.0.0.1", port: otherHost.port };
      if (host === "plain.example") return { host: "127.0.0.1", port: (plainHost.address() as AddressInfo).port };
      return { host: "127.0.0.1", port: 9 }; // nothing listens: a test that gets here fails loudly
    },
    upstreamCa: [pki.caPem],
    log: (line) => {
      logLines.push(line);
      logged.resolve();
    },
  });
}

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), "byok-conn-proxy-"));
  ca = loadOrCreateCa(configDir);
  pki = makeStandInPki();
  realHost = await startTlsStandIn(pki, ["api2.cursor.sh"]);
  otherHost = await startTlsStandIn(pki, ["other.example"]);
  plainHost = createServer((req, res) => res.writeHead(200, { "x-plain": "yes" }).end(`plain:${req.url}:${req.headers.host}`));
  plainHost.listen(0, "127.0.0.1");
  await once(plainHost, "listening");
  deployment = await startDeployment();
  connector = await startWith(`http://127.0.0.1:${deployment.port}/`);
  // What the OS trusts once the user has added the connector's CA: it and the public CAs.
  trusted = [ca.certPem, pki.caPem];
});

afterEach(() => {
  deployment.seen.length = 0;
  deployment.handle = (_req, res) => res.writeHead(200, { "content-type": "application/proto" }).end("deployment");
  realHost.requests.length = 0;
  logLines = [];
  logged = deferred();
});

afterAll(async () => {
  await connector?.close();
  await Promise.all([deployment?.close(), realHost?.close(), otherHost?.close()]);
  plainHost?.closeAllConnections();
  plainHost?.close();
  rmSync(configDir, { recursive: true, force: true });
});

describe("the connector", () => {
  it("sends a model-catalogue call to the deployment with the user's token, not Cursor's", async () => {
    const body = new Uint8Array([0, 1, 2, 250, 255]);
    const { response } = await requestThrough({
      proxyPort: connector.port,
      host: "api2.cursor.sh",
      ca: trusted,
      path: "/aiserver.v1.AiService/AvailableModels",
      headers: {
        authorization: CURSOR_AUTH,
        cookie: "WorkosCursorSessionToken=secret",
        "content-type": "application/proto",
        "x-ghost-mode": "true",
      },
      body,
    });
    expect(response.statusCode).toBe(200);
    expect((await readAll(response)).toString()).toBe("deployment");
    expect(deployment.seen).toHaveLength(1);
    const seen = deployment.seen[0]!;
    expect(seen.path).toBe("/aiserver.v1.AiService/AvailableModels");
    expect(seen.headers.authorization).toBe(`Bearer ${USER_TOKEN}`);
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers["x-ghost-mode"]).toBe("true");
    expect([...seen.body]).toEqual([...body]);
    expect(realHost.requests).toHaveLength(0);
    expect(logLines).toEqual([expect.stringMatching(/^POST \/aiserver\.v1\.AiService\/AvailableModels 200 \d+ ms$/)]);
    expect(logLines.join("\n")).not.toContain(USER_TOKEN);
  });

  it("answers TLS for a routed host with a certificate from its own CA, HTTP/1.1 only", async () => {
    const socket = await tlsThrough(connector.port, "api2.cursor.sh", [ca.certPem]);
    expect(socket.alpnProtocol).toBe("http/1.1");
    expect(socket.getPeerCertificate().issuer.O).toBe("byok-edge");
    socket.destroy();
  });

  it("passes every other path on the routed host to the real host unchanged", async () => {
    const body = new Uint8Array(Array.from({ length: 300 }, (_, i) => (i * 7) % 256));
    const { response } = await requestThrough({
      proxyPort: connector.port,
      host: "api2.cursor.sh",
      ca: trusted,
      path: "/aiserver.v1.DashboardService/GetMe?x=1",
      headers: { authorization: CURSOR_AUTH, cookie: "c=1", "content-type": "application/proto", "x-cursor-client-version": "9.9" },
      body,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-stand-in"]).toBe("real");
    expect((await readAll(response)).toString()).toBe("real:/aiserver.v1.DashboardService/GetMe?x=1");
    expect(deployment.seen).toHaveLength(0);
    expect(realHost.requests).toHaveLength(1);
    const seen = realHost.requests[0]!;
    expect(seen.servername).toBe("api2.cursor.sh");
    expect(seen.method).toBe("POST");
    expect(seen.path).toBe("/aiserver.v1.DashboardService/GetMe?x=1");
    expect(seen.headers).toMatchObject({
      host: "api2.cursor.sh",
      authorization: CURSOR_AUTH,
      cookie: "c=1",
      "content-type": "application/proto",
      "x-cursor-client-version": "9.9",
      "content-length": "300",
    });
    expect([...seen.body]).toEqual([...body]);
    expect(logLines).toEqual([]);
  });

  it("tunnels a CONNECT to any other host blind: the client sees that host's own certificate", async () => {
    const socket = await tlsThrough(connector.port, "other.example", [pki.caPem]);
    expect(socket.getPeerCertificate().issuer.CN).toBe("stand-in public CA");
    socket.destroy();
    // Trusting only the connector's CA gets nowhere: it never issued a certificate for this host.
    await expect(tlsThrough(connector.port, "other.example", [ca.certPem])).rejects.toThrow(/certificate/i);
    const { response } = await requestThrough({ proxyPort: connector.port, host: "other.example", ca: [pki.caPem], path: "/x" });
    expect((await readAll(response)).toString()).toBe("real:/x");
    expect(otherHost.requests.at(-1)?.headers.host).toBe("other.example");
  });

  it("streams RunSSE: a chunk reaches Cursor before the deployment ends the response", async () => {
    const firstSeen = deferred();
    deployment.handle = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("first-frame");
      void firstSeen.promise.then(() => res.end("last-frame"));
    };
    const { response } = await requestThrough({
      proxyPort: connector.port,
      host: "api2.cursor.sh",
      ca: trusted,
      path: "/agent.v1.AgentService/RunSSE",
      headers: { authorization: CURSOR_AUTH, "content-type": "application/connect+proto" },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    expect(response.headers["content-type"]).toBe("text/event-stream");
    const chunks: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk.toString());
        if (chunks.join("") === "first-frame") firstSeen.resolve();
      });
      response.once("end", resolve);
      response.once("error", reject);
    });
    await withTimeout(firstSeen.promise, WAIT_MS, "the first frame before the end of the stream");
    await withTimeout(ended, WAIT_MS, "the end of the stream");
    expect(chunks.join("")).toBe("first-framelast-frame");
    expect(deployment.seen[0]?.headers.authorization).toBe(`Bearer ${USER_TOKEN}`);
  });

  it("aborts the deployment's stream when Cursor goes away", async () => {
    const deploymentSawClose = deferred();
    deployment.handle = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("frame");
      res.once("close", () => deploymentSawClose.resolve());
    };
    const { response, socket } = await requestThrough({
      proxyPort: connector.port,
      host: "api2.cursor.sh",
      ca: trusted,
      path: "/agent.v1.AgentService/RunSSE",
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    await withTimeout(once(response, "data"), WAIT_MS, "the first frame");
    socket.destroy();
    await withTimeout(deploymentSawClose.promise, WAIT_MS, "the deployment to see the stream closed");
    await withTimeout(logged.promise, WAIT_MS, "the log line");
    expect(logLines).toEqual([expect.stringMatching(/^POST \/agent\.v1\.AgentService\/RunSSE client closed \d+ ms$/)]);
  });

  it("answers Cursor with a Connect unavailable error when the deployment cannot be reached", async () => {
    const gone = await startDeployment();
    await gone.close(); // its port is now closed
    const cut = await startWith(`http://127.0.0.1:${gone.port}`);
    try {
      const { response } = await requestThrough({
        proxyPort: cut.port,
        host: "api2.cursor.sh",
        ca: trusted,
        path: "/aiserver.v1.AiService/GetServerConfig",
        body: new Uint8Array(),
      });
      expect(response.statusCode).toBe(503);
      expect(response.headers["content-type"]).toBe("application/json");
      const error = JSON.parse((await readAll(response)).toString()) as { code: string; message: string };
      expect(error.code).toBe("unavailable");
      expect(error.message).toContain(`127.0.0.1:${gone.port}`);
      expect(error.message).toContain("ECONNREFUSED");
      expect(logLines).toEqual([expect.stringMatching(/GetServerConfig failed \d+ ms$/)]);
    } finally {
      await cut.close();
    }
  });

  it("passes plain-HTTP proxy requests through", async () => {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port: connector.port,
        path: "http://plain.example/a?b=c",
        headers: { host: "plain.example" },
      });
      req.once("response", resolve);
      req.once("error", reject);
      req.end();
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-plain"]).toBe("yes");
    expect((await readAll(res)).toString()).toBe("plain:/a?b=c:plain.example");
  });

  it("refuses a request that is neither absolute-form nor CONNECT", async () => {
    const res = await fetch(`http://127.0.0.1:${connector.port}/aiserver.v1.AiService/AvailableModels`, {
      signal: AbortSignal.timeout(WAIT_MS),
    });
    expect(res.status).toBe(400);
    expect(deployment.seen).toHaveLength(0);
  });
});
