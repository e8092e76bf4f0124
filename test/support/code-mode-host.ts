// A Connect client of the worker's CodeModeHost for tests: the real connect-web
// transport (Connect or gRPC-web) over the test runtime's worker, with a bearer token,
// and a lease helper that reads the OpenSession stream event by event.
import { type Client, type Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { exports } from "cloudflare:workers";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  CodeModeHost,
  type ExecuteEvent,
  type OpenSessionRequest,
  type OpenSessionRequestSchema,
  type SessionEvent,
  type ToolCall,
} from "../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { LOCAL_TOKEN } from "./admin-client.ts";
import { BASE } from "./cursor-client.ts";
import { deferred, withTimeout } from "./deferred.ts";

export type CodeModeClient = Client<typeof CodeModeHost>;

/** workerd refuses connect-web's `redirect: "error"`. */
const workerFetch: typeof fetch = (input, init) =>
  exports.default.fetch(input as RequestInfo, { ...init, redirect: "manual" } as RequestInit);

export function codeModeClient(options: { token?: string | null; protocol?: "connect" | "grpc-web"; json?: boolean } = {}): CodeModeClient {
  const token = options.token === undefined ? LOCAL_TOKEN : options.token;
  const create = options.protocol === "grpc-web" ? createGrpcWebTransport : createConnectTransport;
  const transport = create({
    baseUrl: BASE,
    fetch: workerFetch,
    useBinaryFormat: !options.json,
    interceptors: [
      (next) => (request) => {
        if (token !== null) request.header.set("authorization", `Bearer ${token}`);
        return next(request);
      },
    ],
  });
  return createClient(CodeModeHost, transport);
}

/** An open lease: its session id, its later events one by one, and a way to drop it. */
export interface Lease {
  sessionId: string;
  next(what?: string): Promise<SessionEvent["event"] | "end">;
  drop(): void;
}

export async function openLease(
  client: CodeModeClient,
  request: MessageInitShape<typeof OpenSessionRequestSchema> | OpenSessionRequest = {},
): Promise<Lease> {
  const controller = new AbortController();
  const events = client.openSession(request, { signal: controller.signal })[Symbol.asyncIterator]();
  const first = await withTimeout(events.next(), 5_000, "the lease's opened event");
  if (first.done || first.value.event.case !== "opened") throw new Error(`the lease did not open: ${JSON.stringify(first)}`);
  return {
    sessionId: first.value.event.value.sessionId,
    next: async (what = "the next lease event") => {
      const event = await withTimeout(events.next(), 5_000, what);
      return event.done ? "end" : event.value.event;
    },
    drop: () => controller.abort(),
  };
}

/** Every event of an Execute stream. */
export async function collect(events: AsyncIterable<ExecuteEvent>): Promise<ExecuteEvent["event"][]> {
  const out: ExecuteEvent["event"][] = [];
  for await (const event of events) out.push(event.event);
  return out;
}

/** The code and text of a call that must fail. */
export async function failure(call: Promise<unknown>): Promise<{ code: Code; message: string }> {
  try {
    await call;
  } catch (err) {
    const error = ConnectError.from(err);
    return { code: error.code, message: error.rawMessage };
  }
  throw new Error("the call succeeded");
}

/** A SubscribeToToolCalls stream read call by call; `ready` once its headers arrived (reading starts at once). */
export function subscribe(client: CodeModeClient, sessionId: string, toolNames: { name: string; namespace?: string }[] = []) {
  const controller = new AbortController();
  const ready = deferred<Headers>();
  const calls = client
    .subscribeToToolCalls({ sessionId, toolNames }, { signal: controller.signal, onHeader: (header) => ready.resolve(header) })
    [Symbol.asyncIterator]();
  let pending = calls.next();
  return {
    ready: withTimeout(ready.promise, 5_000, "the subscription's headers"),
    next: async (): Promise<ToolCall | "end"> => {
      const next = await withTimeout(pending, 5_000, "a tool call");
      pending = calls.next();
      return next.done ? "end" : next.value;
    },
    close: () => {
      controller.abort();
      pending.catch(() => undefined);
    },
  };
}
