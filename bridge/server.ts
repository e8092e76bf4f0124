// The bridge as a server: connect-node's adapter on a cleartext HTTP/2 server
// (h2c, what Codex's gRPC client speaks to an http:// URL), serving every
// method of CodeModeHost by forwarding it upstream (forward.ts).
import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { CodeModeHost } from "../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { responseHead } from "./response-head.ts";
import { registerForwarding } from "./forward.ts";
import type { BridgeOptions } from "./options.ts";
import { createUpstreamTransport, MESSAGE_MAX_BYTES } from "./upstream.ts";

/** Node's default (10 MB) of buffered HTTP/2 data per session would reset streams carrying a large tool result. */
const SESSION_MEMORY_MB = 256;

export interface Bridge {
  /** The URL to give Codex: `codex app-server --code-mode-host <url>`. */
  url: string;
  port: number;
  /** Stops listening, ends the calls in flight (their upstream calls too) and closes the connections. */
  close(): Promise<void>;
}

export type BridgeConfig = Omit<BridgeOptions, "tokenEnv" | "verbose"> & { onCall?: (method: string) => void };

export async function startBridge(config: BridgeConfig): Promise<Bridge> {
  const shutdown = new AbortController();
  const headers = responseHead();
  const transport = createUpstreamTransport(config.upstreamProtocol, config.upstreamUrl);
  const handler = connectNodeAdapter({
    routes: (router) => registerForwarding(router, CodeModeHost, { transport, token: config.token, onCall: config.onCall }),
    contextValues: headers.contextValues,
    shutdownSignal: shutdown.signal,
    readMaxBytes: MESSAGE_MAX_BYTES,
    writeMaxBytes: MESSAGE_MAX_BYTES,
  });
  const server: Http2Server = createServer({ maxSessionMemory: SESSION_MEMORY_MB }, headers.wrap(handler));
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: async () => {
      shutdown.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}
