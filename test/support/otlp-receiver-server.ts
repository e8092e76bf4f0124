// A real OTLP/HTTP trace receiver for the tests (docs/telemetry.md#traces), run in Node by vitest
// global setup: POST /sinks/<id>/v1/traces is decoded with the OpenTelemetry proto definitions
// (as OpenTelemetry compiled them, in @opentelemetry/otlp-transformer 0.57, aliased
// otlp-proto-0-57) into plain spans the tests read back. A sink set to "fail" answers 500 and one
// set to "hang" never answers, counting the attempts either way.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Socket } from "node:net";
import otlpProtos from "otlp-proto-0-57/build/src/generated/root.js";
import { lowerCaseHeaders, sendJson } from "./node-http.ts";
import type { ReceivedSpan, SinkMode } from "./otlp-receiver-types.ts";

const WAIT_MAX_MS = 10_000;

interface Decoded {
  resourceSpans: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans: {
      scope?: { name?: string };
      spans: {
        traceId: Uint8Array;
        spanId: Uint8Array;
        parentSpanId?: Uint8Array;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number };
        startTimeUnixNano: number | string | Long;
        endTimeUnixNano: number | string | Long;
      }[];
    }[];
  }[];
}
interface KeyValue {
  key: string;
  value?: {
    /** Which of the fields below is set. */
    value?: string;
    stringValue?: string;
    boolValue?: boolean;
    intValue?: number | Long;
    doubleValue?: number;
    arrayValue?: { values?: KeyValue["value"][] };
  };
}

const ExportTraceServiceRequest = (
  otlpProtos as unknown as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): Decoded } } } } } };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

class Sink {
  mode: SinkMode = "ok";
  readonly spans: ReceivedSpan[] = [];
  attempts = 0;
  headers: Record<string, string> = {};
  readonly #waiters = new Set<() => void>();

  received(): void {
    for (const wake of this.#waiters) wake();
  }

  waitFor(enough: () => boolean, timeoutMs: number): Promise<void> {
    if (enough()) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const wake = () => {
        if (enough()) finish();
      };
      const timer = setTimeout(finish, timeoutMs);
      this.#waiters.add(wake);
    });
  }
}

export async function startOtlpReceiver(): Promise<{ port: number; close(): Promise<void> }> {
  const sinks = new Map<string, Sink>();
  const sinkOf = (id: string) => {
    let sink = sinks.get(id);
    if (!sink) {
      sink = new Sink();
      sinks.set(id, sink);
    }
    return sink;
  };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res, sinkOf).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(err) });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, sinkOf: (id: string) => Sink): Promise<void> {
  const url = new URL(req.url ?? "/", "http://receiver");
  const traces = /^\/sinks\/([\w-]+)\/v1\/traces$/.exec(url.pathname);
  if (traces && req.method === "POST") {
    const sink = sinkOf(traces[1]!);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    sink.attempts++;
    sink.headers = lowerCaseHeaders(req);
    if (sink.mode === "hang") {
      sink.received();
      return; // never answers; the socket is destroyed at close
    }
    if (sink.mode === "fail") {
      sink.received();
      res.writeHead(500).end("collector down");
      return;
    }
    sink.spans.push(...spansOf(ExportTraceServiceRequest.decode(Buffer.concat(chunks))));
    sink.received();
    res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    return;
  }
  const control = /^\/sinks\/([\w-]+)$/.exec(url.pathname);
  if (control && req.method === "PUT") {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    sinkOf(control[1]!).mode = (JSON.parse(Buffer.concat(chunks).toString("utf8")) as { mode: SinkMode }).mode;
    res.writeHead(204).end();
    return;
  }
  if (control && req.method === "GET") {
    const sink = sinkOf(control[1]!);
    const minSpans = Number(url.searchParams.get("min_spans") ?? 0);
    const minAttempts = Number(url.searchParams.get("min_attempts") ?? 0);
    const timeoutMs = Math.min(Number(url.searchParams.get("timeout_ms") ?? WAIT_MAX_MS), WAIT_MAX_MS);
    await sink.waitFor(() => sink.spans.length >= minSpans && sink.attempts >= minAttempts, timeoutMs);
    sendJson(res, 200, { spans: sink.spans, attempts: sink.attempts, headers: sink.headers });
    return;
  }
  sendJson(res, 404, { error: "no such route" });
}

function spansOf(request: Decoded): ReceivedSpan[] {
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((span) => ({
        traceId: hex(span.traceId),
        spanId: hex(span.spanId),
        parentSpanId: span.parentSpanId?.length ? hex(span.parentSpanId) : "",
        name: span.name,
        kind: span.kind,
        attributes: Object.fromEntries((span.attributes ?? []).map((kv) => [kv.key, anyValueOf(kv.value)])),
        statusCode: span.status?.code ?? 0,
        startMs: intOf(span.startTimeUnixNano) / 1e6,
        endMs: intOf(span.endTimeUnixNano) / 1e6,
        service: String(anyValueOf(rs.resource?.attributes?.find((kv) => kv.key === "service.name")?.value) ?? ""),
        scope: ss.scope?.name ?? "",
      })),
    ),
  );
}

/** An AnyValue by its oneof case (protobufjs names the set field in `value`; the others read as defaults). */
function anyValueOf(value: KeyValue["value"]): unknown {
  if (!value) return undefined;
  switch (value.value) {
    case "stringValue":
      return value.stringValue;
    case "boolValue":
      return value.boolValue;
    case "intValue":
      return intOf(value.intValue!);
    case "doubleValue":
      return value.doubleValue;
    case "arrayValue":
      return (value.arrayValue?.values ?? []).map(anyValueOf);
    default:
      return undefined;
  }
}

/** protobufjs without the long package decodes an int64 as {low, high}. */
interface Long {
  low: number;
  high: number;
}

function intOf(value: number | string | Long): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") return Number(value);
  return (value.high >>> 0) * 2 ** 32 + (value.low >>> 0);
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}
