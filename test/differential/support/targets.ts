// The targets every scenario runs against (docs/code-mode.md#differential-suite):
// the reference host over native gRPC, and byok-edge under `wrangler dev` over
// the Connect protocol and over gRPC-web, both on HTTP/1.1 with the bearer token.
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { inject } from "vitest";
import { CodeModeHost } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { SUBSCRIPTION_READY_HEADER } from "../../../src/code-mode/host/lease.ts";
import { heartbeats } from "./heartbeats.ts";

export type CodeModeClient = Client<typeof CodeModeHost>;

/**
 * Where a target may differ from the reference, each documented in
 * docs/code-mode.md#platform-differences. A scenario consults a flag only
 * where that difference shows; everywhere else outcomes must be identical.
 */
interface PlatformDifferences {
  /**
   * How long a dropped lease may take to retire its session. The reference
   * notices the closed HTTP/2 stream at once; under `wrangler dev` byok-edge
   * notices it at the second write after the drop: the second heartbeat (~2 s)
   * when the client asked for them, else the second event, with room for a
   * loaded machine.
   */
  leaseDropNoticedWithinMs: number;
  /**
   * Whether a client that asks for no heartbeats is seen leaving an idle
   * stream (a lease, an Execute before its outcome, a subscription). The
   * reference sees the HTTP/2 stream reset; under `wrangler dev` workerd sees
   * a client gone only when a write to it fails, and nothing is written on an
   * idle stream.
   */
  idleDropNoticed: boolean;
  /**
   * Whether a unary Wait whose caller went away stops observing its cell at
   * once. The reference sees the HTTP/2 stream reset; under `wrangler dev`
   * workerd notices a client gone from a pending unary call only when it
   * writes the answer, so the abandoned Wait observes until its yield time ends.
   * (Through the bridge it is noticed: the bridge cancels it, bridge-targets.test.ts.)
   */
  droppedWaitNoticed: boolean;
  /**
   * Whether `eval` and `new Function` work in a cell. The reference's V8
   * allows them; workerd never generates code from strings, so on a Worker
   * both throw.
   */
  codeFromStrings: boolean;
}

export interface Target {
  name: string;
  /** Why the target is skipped here, or undefined when it runs. */
  skipped?: string;
  client: CodeModeClient;
  differences: PlatformDifferences;
  /**
   * Whether SubscribeToToolCalls' response headers say the subscription takes calls.
   * Native gRPC refuses trailers-only, so any headers do; Connect and gRPC-web send
   * headers before an error too, so byok-edge marks an accepted one.
   */
  subscriptionAccepted(header: Headers): boolean;
}

const REFERENCE: PlatformDifferences = {
  leaseDropNoticedWithinMs: 5_000,
  idleDropNoticed: true,
  droppedWaitNoticed: true,
  codeFromStrings: true,
};
const BYOK_EDGE: PlatformDifferences = {
  leaseDropNoticedWithinMs: 8_000,
  idleDropNoticed: false,
  droppedWaitNoticed: false,
  codeFromStrings: false,
};

function bearer(token: string): Interceptor {
  return (next) => (request) => {
    request.header.set("authorization", `Bearer ${token}`);
    return next(request);
  };
}

function target(
  name: string,
  baseUrl: string,
  differences: PlatformDifferences,
  transport: (baseUrl: string) => Transport,
  subscriptionAccepted: (header: Headers) => boolean,
): Target {
  // A skipped target still gets a client (never called), so scenarios need no guards.
  const url = baseUrl || "http://127.0.0.1:9";
  const client = createClient(CodeModeHost, transport(url));
  return { name, skipped: baseUrl ? undefined : "not started", client, differences, subscriptionAccepted };
}

const anyHeaders = () => true;
const readyHeader = (header: Headers) => header.has(SUBSCRIPTION_READY_HEADER);

export interface TargetOptions {
  /** Ask for heartbeats on long streams (default); false: a plain client, which knows nothing of them. */
  heartbeats?: boolean;
}

const built = new Map<boolean, Target[]>();

/** The targets, built once per test file (and per option) from what the global setup provided. */
export function codeModeTargets(options: TargetOptions = {}): Target[] {
  const beats = options.heartbeats ?? true;
  const cached = built.get(beats);
  if (cached) return cached;
  const referenceUrl = inject("codeModeReferenceUrl");
  const edgeUrl = inject("codeModeEdgeUrl");
  const asked = beats ? [heartbeats] : [];
  const interceptors = [...asked, bearer(inject("codeModeEdgeToken"))];
  const targets = [
    target("reference", referenceUrl, REFERENCE, (baseUrl) => createGrpcTransport({ baseUrl, interceptors: asked }), anyHeaders),
    target(
      "byok-edge",
      edgeUrl,
      BYOK_EDGE,
      (baseUrl) => createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true, interceptors }),
      readyHeader,
    ),
    target(
      "byok-edge over gRPC-web",
      edgeUrl,
      BYOK_EDGE,
      (baseUrl) => createGrpcWebTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: true, interceptors }),
      readyHeader,
    ),
  ];
  built.set(beats, targets);
  return targets;
}
