// A Connect client of the worker's CodeModeHost for tests: the real connect-web
// transport (Connect or gRPC-web) over the test runtime's worker, with a bearer token,
// and a lease helper that reads the OpenSession stream event by event.
import { createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { exports } from "cloudflare:workers";
import { CodeModeHost, type OpenSessionRequest, type SessionEvent } from "../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { OpenSessionRequestSchema } from "../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { LOCAL_TOKEN } from "./admin-client.ts";
import { BASE } from "./cursor-client.ts";
import { withTimeout } from "./deferred.ts";

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
