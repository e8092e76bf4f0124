// The "plain one-process Node server" baseline of the concurrency section
// (docs/benchmarks.md#concurrency): POST {url, body} → fetch the provider, pipe its
// body back. It runs as its own Node process (this file, started by startNodeRelay),
// so like the worker it does not share the bench's event loop. No auth, no parsing.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

export interface NodeRelay {
  url: string;
  close(): void;
}

/** Starts this file as a child process; resolves once it listens. */
export async function startNodeRelay(): Promise<NodeRelay> {
  const child = spawn(process.execPath, [import.meta.filename, "--serve"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("node relay did not start within 10 s")), 10_000);
    child.once("exit", (code) => reject(new Error(`node relay exited (${code})`)));
    child.stdout.once("data", (d: Buffer) => {
      clearTimeout(timer);
      resolve(Number(d.toString().trim()));
    });
  });
  return { url: `http://127.0.0.1:${port}/relay`, close: () => child.kill("SIGKILL") };
}

function serve(): void {
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const { url, body } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { url: string; body: string };
      const upstream = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/octet-stream" });
      if (!upstream.body) return void res.end();
      res.socket?.setNoDelay(true);
      Readable.fromWeb(upstream.body as import("node:stream/web").ReadableStream).pipe(res);
    } catch (error) {
      res.writeHead(502).end(String(error));
    }
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
}

if (process.argv[2] === "--serve") serve();
