// An HTTP(S) proxy on 127.0.0.1 that forwards nothing: it records the host of
// every request and CONNECT tunnel a child process tries, and refuses it. Set as
// HTTPS_PROXY/HTTP_PROXY/ALL_PROXY (with NO_PROXY for 127.0.0.1) for the Codex CLI,
// it turns "Codex reached the internet" into a visible, asserted list.
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RefusingProxy {
  url: string;
  /** Hosts (host:port) that were tried, in order, repeats included. */
  attempts(): string[];
  close(): Promise<void>;
}

export async function startRefusingProxy(): Promise<RefusingProxy> {
  const attempts: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    attempts.push(hostOf(req.url ?? "", req.headers.host));
    res.writeHead(403, { "content-type": "text/plain", connection: "close" });
    res.end("refused: the e2e check allows no network beyond 127.0.0.1\n");
  });
  server.on("connect", (req, socket: Socket) => {
    attempts.push(req.url ?? "?");
    socket.end("HTTP/1.1 403 Forbidden\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts: () => [...attempts],
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function hostOf(target: string, hostHeader: string | undefined): string {
  try {
    return new URL(target).host;
  } catch {
    return hostHeader ?? target;
  }
}
