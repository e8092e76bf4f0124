// A client that goes through an HTTP proxy the way Cursor does: `CONNECT
// host:443`, TLS inside the tunnel (trusting only the CAs it is given), then
// HTTP/1.1 on that connection. The connector's tests and e2e/connector.ts use it.
import { type ClientRequestArgs, type IncomingMessage, request } from "node:http";
import type { Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";

const TIMEOUT_MS = 10_000;

/** Opens a CONNECT tunnel to `authority` ("host:port"); rejects with the proxy's status line otherwise. */
function connectThrough(proxyPort: number, authority: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: proxyPort, method: "CONNECT", path: authority, timeout: TIMEOUT_MS });
    req.once("connect", (res, socket) => {
      if (res.statusCode === 200) resolve(socket);
      else {
        socket.destroy();
        reject(new Error(`CONNECT ${authority} → ${res.statusCode}`));
      }
    });
    req.once("timeout", () => req.destroy(new Error(`CONNECT ${authority} timed out`)));
    req.once("error", reject);
    req.end();
  });
}

/** TLS to `host` through the proxy, verifying the certificate against `ca` only, offering h2 and http/1.1 like Cursor. */
export async function tlsThrough(proxyPort: number, host: string, ca: string[]): Promise<TLSSocket> {
  const socket = await connectThrough(proxyPort, `${host}:443`);
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ socket, servername: host, ca, ALPNProtocols: ["h2", "http/1.1"] });
    tls.once("secureConnect", () => resolve(tls));
    tls.once("error", (error) => {
      socket.destroy();
      reject(error);
    });
  });
}

/**
 * node:http request options whose every connection is a fresh tunnel through the
 * proxy to `host` (e.g. for connect-node's `nodeOptions`, with a base URL on `host`).
 */
export function throughProxy(proxyPort: number, host: string, ca: string[]): Pick<ClientRequestArgs, "createConnection"> {
  return {
    createConnection: (_options, oncreate) => {
      tlsThrough(proxyPort, host, ca).then(
        (socket) => oncreate(null, socket),
        (error: Error) => oncreate(error, undefined as never),
      );
      return undefined;
    },
  };
}

export interface ProxiedRequest {
  proxyPort: number;
  host: string;
  ca: string[];
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
}

/** One HTTPS request through the proxy; resolves at the response head, so its body can be read as it streams. */
export async function requestThrough(r: ProxiedRequest): Promise<{ response: IncomingMessage; socket: TLSSocket }> {
  const socket = await tlsThrough(r.proxyPort, r.host, r.ca);
  return new Promise((resolve, reject) => {
    const req = request({
      createConnection: () => socket,
      host: r.host,
      method: r.method ?? "POST",
      path: r.path,
      headers: { host: r.host, ...r.headers, ...(r.body && { "content-length": String(r.body.byteLength) }) },
      timeout: TIMEOUT_MS,
    });
    req.once("response", (response) => resolve({ response, socket }));
    req.once("timeout", () => req.destroy(new Error(`${r.path} timed out`)));
    req.once("error", reject);
    req.end(r.body ? Buffer.from(r.body) : undefined);
  });
}

export async function readAll(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
