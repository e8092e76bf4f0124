// A timing-aware stand-in for an OpenAI Chat Completions provider, for the
// benchmark. It runs in the benchmark's own process, so its send times and the
// client's receive times come from the same performance.now() clock.
//
// A request is matched to a prepared run by the marker `bench:<id>` in its body.
// The response headers go out at once (like a real provider, whose first token
// comes later); then N content chunks, chunk i written at start + (i+1) × interval
// (scheduled against the start, so timer lateness does not accumulate), each
// carrying the text `[c<i>]` so a client can tell which chunk it has received;
// then a finish chunk, a usage chunk and [DONE]. A plan with `toolCall` streams one
// tool call instead (name, then its arguments, finish "tool_calls"), for the tool
// round trip of bench/tool-round.ts. Sending headers first means that
// for chunk 0 both byok-edge and the passthrough measure an established stream,
// not the setup of the passthrough's response.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";

export interface StreamPlan {
  chunks: number;
  intervalMs: number;
  /** Stream this tool call (OpenAI `tool_calls`) instead of text chunks. */
  toolCall?: { id: string; name: string; arguments: string };
}

export interface StreamRecord {
  plan: StreamPlan;
  /** When the request's headers arrived. */
  requestAt?: number;
  /** When the response headers were flushed. */
  headersAt?: number;
  /** When chunk i was handed to the socket (index = chunk number). Chunk 0 is the first byte of the body. */
  sentAt: number[];
  /** When the response ended. */
  endedAt?: number;
  /** The request body, for checking what the worker sent. */
  requestBody?: string;
}

export interface StreamServer {
  port: number;
  /** Registers a run; requests whose body contains `bench:<id>` are served by it (once). */
  prepare(id: string, plan: StreamPlan): StreamRecord;
  close(): Promise<void>;
}

const MARKER = /bench:([A-Za-z0-9_-]+)/g;

export function chunkText(i: number): string {
  return `[c${i}] `;
}

/** Chunk indexes found in `text` (the markers written by chunkText). */
export const CHUNK_MARKER = /\[c(\d+)\]/g;

export async function startStreamServer(): Promise<StreamServer> {
  const pending = new Map<string, StreamRecord>();
  const server = createServer((req, res) => {
    const requestAt = performance.now();
    serve(req, res, pending, requestAt).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    prepare(id, plan) {
      const record: StreamRecord = { plan, sentAt: [] };
      pending.set(id, record);
      return record;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serve(req: IncomingMessage, res: ServerResponse, pending: Map<string, StreamRecord>, requestAt: number): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  // A later turn's body also carries the markers of the earlier turns (history): the newest pending one wins.
  const id = [...body.matchAll(MARKER)]
    .map((m) => m[1]!)
    .reverse()
    .find((candidate) => pending.has(candidate));
  const record = id === undefined ? undefined : pending.get(id);
  if (!record || req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `bench server: no prepared run for ${req.method} ${req.url}` } }));
    return;
  }
  pending.delete(id!);
  record.requestAt = requestAt;
  record.requestBody = body;
  if (record.plan.toolCall) streamToolCall(res, record, record.plan.toolCall);
  else await streamChunks(res, record);
}

function streamToolCall(res: ServerResponse, record: StreamRecord, call: NonNullable<StreamPlan["toolCall"]>): void {
  const id = `chatcmpl-bench-${Math.random().toString(36).slice(2)}`;
  res.socket?.setNoDelay(true);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  record.headersAt = performance.now();
  record.sentAt[0] = record.headersAt;
  res.write(chunk(id, { role: "assistant", content: null }));
  res.write(chunk(id, { tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
  res.write(chunk(id, { tool_calls: [{ index: 0, function: { arguments: call.arguments } }] }));
  res.write(chunk(id, {}, "tool_calls"));
  res.write(sse({ id, object: "chat.completion.chunk", created: 0, model: "bench", choices: [], usage: usage(1) }));
  res.write(sse("[DONE]"));
  res.end();
  record.endedAt = performance.now();
}

function usage(completion: number) {
  return { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion };
}

function sse(value: unknown): string {
  return `data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`;
}

function chunk(id: string, delta: Record<string, unknown>, finishReason: string | null = null): string {
  return sse({
    id,
    object: "chat.completion.chunk",
    created: 0,
    model: "bench",
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
}

async function streamChunks(res: ServerResponse, record: StreamRecord): Promise<void> {
  const { chunks, intervalMs } = record.plan;
  const id = `chatcmpl-bench-${Math.random().toString(36).slice(2)}`;
  let gone = false;
  res.on("close", () => {
    gone = true;
  });
  res.socket?.setNoDelay(true);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  const start = performance.now();
  record.headersAt = start;
  for (let i = 0; i < chunks && !gone; i++) {
    const due = start + (i + 1) * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const delta = i === 0 ? { role: "assistant", content: chunkText(i) } : { content: chunkText(i) };
    record.sentAt[i] = performance.now();
    res.write(chunk(id, delta));
  }
  if (gone) return;
  res.write(chunk(id, {}, "stop"));
  res.write(
    sse({
      id,
      object: "chat.completion.chunk",
      created: 0,
      model: "bench",
      choices: [],
      usage: usage(chunks),
    }),
  );
  res.write(sse("[DONE]"));
  res.end();
  record.endedAt = performance.now();
}
