// The connector's HTTP proxy (docs/connector.md#what-goes-where). `CONNECT` to a
// routed Cursor host on 443 is answered with TLS under a leaf from the
// connector's CA (HTTP/1.1 only); its agent and catalogue paths go to the
// deployment with the user's token in place of Cursor's, every other path to the
// real host over TLS verified against Node's roots and the OS store
// (connector/upstream-ca.ts), unchanged. `CONNECT` anywhere else is a blind TCP
// tunnel; plain-HTTP proxy requests are passed through. Bodies stream both ways
// unbuffered (RunSSE is one long response) and a client that goes away aborts
// the upstream call. Nothing here logs a body, a header value or the token.
import {
  type ClientRequest,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  Agent as HttpAgent,
  request as httpRequest,
  type ServerResponse,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { connect as netConnect, type Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { createSecureContext, TLSSocket } from "node:tls";
import type { CertificateAuthority } from "./ca.ts";
import { LeafCerts } from "./leaf-certs.ts";
import { isRoutedHost, isRoutedPath, ROUTED_HOSTS } from "./routes.ts";
import { upstreamCa as trustedForUpstream } from "./upstream-ca.ts";

export interface ConnectorOptions {
  /** The deployment's base URL (http or https), e.g. https://byok.example.com. */
  deploymentUrl: string;
  /** The user's byok-edge token, sent as `Authorization: Bearer` on routed paths only. */
  token: string;
  ca: CertificateAuthority;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 8790; 0 picks a free port. */
  port?: number;
  routedHosts?: readonly string[];
  /** Where "the real host" of passthrough and tunnelled traffic is; tests point it at local stand-ins. Default: the host itself. */
  resolveUpstream?: (host: string, port: number) => { host: string; port: number };
  /** CA certificates (PEM) trusted for the real upstream on top of connector/upstream-ca.ts's (tests' stand-in public CA). */
  upstreamCa?: readonly string[];
  /** Bound on reaching any upstream (TCP and TLS). Default 10 s. */
  connectTimeoutMs?: number;
  /** Bound on an upstream's response head once the request is sent. Default 60 s. */
  responseHeadTimeoutMs?: number;
  /** One line per routed request (method, path, status, duration). */
  log?: (line: string) => void;
}

export interface Connector {
  port: number;
  close(): Promise<void>;
}

const DEFAULT_PORT = 8790;
const CONNECT_TIMEOUT_MS = 10_000;
const RESPONSE_HEAD_TIMEOUT_MS = 60_000;
const ESTABLISHED = "HTTP/1.1 200 Connection Established\r\n\r\n";
/** Never forwarded (RFC 9110 §7.6.1), plus the proxy's own headers. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
/** Cursor's own credentials: replaced (authorization) or withheld (cookie) on the way to the deployment. */
const CURSOR_CREDENTIALS = ["authorization", "cookie"];

class UpstreamTimeout extends Error {}

export async function startConnector(options: ConnectorOptions): Promise<Connector> {
  const base = deploymentBase(options.deploymentUrl);
  const routedHosts = options.routedHosts ?? ROUTED_HOSTS;
  const resolveUpstream = options.resolveUpstream ?? ((host: string, port: number) => ({ host, port }));
  // Built once: with the OS store (Node >= 22.15) it is some 260 PEMs, and a context built per
  // upstream socket would block the event loop carrying the RunSSE streams for ~27 ms each.
  const upstreamCa = trustedForUpstream(options.upstreamCa);
  const upstreamContext = upstreamCa && createSecureContext({ ca: upstreamCa });
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const headTimeoutMs = options.responseHeadTimeoutMs ?? RESPONSE_HEAD_TIMEOUT_MS;
  const log = options.log ?? (() => {});
  const leaves = new LeafCerts(options.ca, routedHosts);
  // The real hosts have their own agent: its trust is not the deployment's, and given as a context
  // (not `ca`) it stays out of the agent's pool key, which would otherwise carry every PEM.
  const agents = {
    http: new HttpAgent({ keepAlive: true }),
    https: new HttpsAgent({ keepAlive: true }),
    realHosts: new HttpsAgent({ keepAlive: true, ...(upstreamContext && { secureContext: upstreamContext }) }),
  };
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  };
  /** The routed host each terminated TLS socket was opened for (from CONNECT, not from the Host header). */
  const mitmHost = new WeakMap<Socket, string>();

  /**
   * Sends `upstream` on its way with the client's body, and the response back,
   * streaming; `onEnd` gets the outcome once: the status, "failed" or "client closed".
   */
  function relay(req: IncomingMessage, res: ServerResponse, upstream: ClientRequest, what: string, onEnd: (outcome: string) => void): void {
    let head: NodeJS.Timeout | undefined;
    let ended = false;
    const done = (outcome: string) => {
      if (ended) return;
      ended = true;
      onEnd(outcome);
    };
    const fail = (error: Error) => upstream.destroy(error);
    upstream.on("socket", (socket) => {
      socket.setNoDelay(true);
      if (socket.connecting) {
        const timer = setTimeout(() => fail(new UpstreamTimeout(`no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
        socket.once(socket instanceof TLSSocket ? "secureConnect" : "connect", () => clearTimeout(timer));
        socket.once("close", () => clearTimeout(timer));
      }
    });
    upstream.on("finish", () => {
      head = setTimeout(() => fail(new UpstreamTimeout(`no response within ${headTimeoutMs} ms`)), headTimeoutMs);
    });
    upstream.on("response", (upRes) => {
      clearTimeout(head);
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, withoutHopByHop(upRes.headers));
      res.flushHeaders();
      upRes.pipe(res);
      upRes.on("error", () => res.destroy());
      upRes.on("aborted", () => res.destroy());
      res.on("finish", () => done(String(upRes.statusCode)));
    });
    upstream.on("error", (error) => {
      clearTimeout(head);
      if (res.headersSent) {
        res.destroy();
      } else {
        const reason = error instanceof UpstreamTimeout ? error.message : ((error as NodeJS.ErrnoException).code ?? error.message);
        unavailable(res, `byok-connect: could not reach ${what} (${reason})`);
      }
      done("failed");
    });
    // The client went away (Cursor stopped the run, or quit): abort the upstream call too.
    res.on("close", () => {
      clearTimeout(head);
      if (!res.writableFinished) {
        upstream.destroy();
        done("client closed");
      }
    });
    req.on("error", () => upstream.destroy());
    req.pipe(upstream);
  }

  function toDeployment(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    const url = new URL(base + req.url);
    const path = url.pathname;
    const headers = withoutHopByHop(req.headers, ["host", ...CURSOR_CREDENTIALS]);
    headers.authorization = `Bearer ${options.token}`;
    const secure = url.protocol === "https:";
    const upstream = (secure ? httpsRequest : httpRequest)(url, {
      method: req.method,
      headers,
      agent: secure ? agents.https : agents.http,
    });
    relay(req, res, upstream, `the deployment at ${url.origin}`, (outcome) => {
      log(`${req.method} ${path} ${outcome} ${Math.round(performance.now() - started)} ms`);
    });
  }

  function toRealHost(req: IncomingMessage, res: ServerResponse, host: string): void {
    const target = resolveUpstream(host, 443);
    const upstream = httpsRequest({
      host: target.host,
      port: target.port,
      servername: host, // SNI and the name the certificate is verified against
      method: req.method,
      path: req.url,
      headers: withoutHopByHop(req.headers),
      agent: agents.realHosts,
    });
    relay(req, res, upstream, host, () => {});
  }

  const inner = createServer({ requestTimeout: 0 }, (req, res) => {
    const host = mitmHost.get(req.socket);
    if (host === undefined) {
      res.destroy();
    } else if (isRoutedPath(req.url ?? "")) {
      toDeployment(req, res);
    } else {
      toRealHost(req, res, host);
    }
  });
  inner.on("clientError", (_error, socket) => socket.destroy());

  function terminate(client: Socket, head: Buffer, host: string): void {
    const secureContext = leaves.contextFor(host);
    // A client that sends its TLS hello before our 200 would have it lost under the
    // TLS wrap (it reads the socket's handle, not its JS buffer); clients wait, so refuse.
    if (head.length > 0) {
      client.destroy();
      return;
    }
    client.write(ESTABLISHED);
    const tls = new TLSSocket(client, { isServer: true, secureContext, ALPNProtocols: ["http/1.1"] });
    tls.on("error", () => tls.destroy());
    mitmHost.set(tls, host);
    track(tls);
    inner.emit("connection", tls);
  }

  function tunnel(client: Socket, head: Buffer, host: string, port: number): void {
    const target = resolveUpstream(host, port);
    const upstream = netConnect({ host: target.host, port: target.port });
    track(upstream);
    upstream.setNoDelay(true);
    let open = false;
    const timer = setTimeout(() => upstream.destroy(new UpstreamTimeout("timeout")), connectTimeoutMs);
    upstream.once("connect", () => {
      clearTimeout(timer);
      open = true;
      client.write(ESTABLISHED);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => {
      clearTimeout(timer);
      if (open) client.destroy();
      else client.end("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
    upstream.on("close", () => client.end());
    client.on("error", () => upstream.destroy());
    client.on("close", () => upstream.destroy());
  }

  const outer = createServer({ requestTimeout: 0 }, (req, res) => {
    // A plain-HTTP proxy request (absolute-form): passed through as it is.
    let url: URL;
    try {
      url = new URL(req.url ?? "");
      if (url.protocol !== "http:") throw new Error("not http");
    } catch {
      res
        .writeHead(400, { "content-type": "text/plain" })
        .end("byok-connect is an HTTP proxy: send absolute-form http:// requests or CONNECT\n");
      return;
    }
    const port = Number(url.port || 80);
    const target = resolveUpstream(url.hostname, port);
    const upstream = httpRequest({
      host: target.host,
      port: target.port,
      method: req.method,
      path: url.pathname + url.search,
      headers: withoutHopByHop(req.headers),
      agent: agents.http,
    });
    relay(req, res, upstream, url.host, () => {});
  });
  outer.on("connection", track);
  outer.on("clientError", (_error, socket) => socket.destroy());
  outer.on("connect", (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    const authority = parseAuthority(req.url ?? "");
    if (!authority) {
      client.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    } else if (authority.port === 443 && isRoutedHost(authority.host, routedHosts)) {
      terminate(client, head, authority.host.toLowerCase());
    } else {
      tunnel(client, head, authority.host, authority.port);
    }
  });

  await new Promise<void>((resolve, reject) => {
    outer.once("error", reject);
    outer.listen(options.port ?? DEFAULT_PORT, options.host ?? "127.0.0.1", () => {
      outer.off("error", reject);
      resolve();
    });
  });
  const address = outer.address();
  if (address === null || typeof address === "string") throw new Error("the connector is not listening on a TCP port");

  return {
    port: address.port,
    async close() {
      const closed = new Promise<void>((resolve) => outer.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      agents.http.destroy();
      agents.https.destroy();
      agents.realHosts.destroy();
      await closed;
    },
  };
}

/** The deployment's origin and path prefix, without a trailing slash. */
function deploymentBase(raw: string): string {
  const url = new URL(raw);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`the deployment URL must be http(s): ${raw}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** `host:port` of a CONNECT request (IPv6 in brackets). */
function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
}

function withoutHopByHop(headers: IncomingHttpHeaders, drop: readonly string[] = []): IncomingHttpHeaders {
  const listed = String(headers.connection ?? "")
    .split(",")
    .map((token) => token.trim().toLowerCase())
    .filter(Boolean);
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || listed.includes(name) || drop.includes(name)) continue;
    out[name] = value;
  }
  return out;
}

/** A Connect error before any response (as byok-edge sends them): HTTP 503 and `{"code": "unavailable", "message"}`. */
function unavailable(res: ServerResponse, message: string): void {
  const body = JSON.stringify({ code: "unavailable", message });
  res.writeHead(503, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}
