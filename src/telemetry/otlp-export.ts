// Sending one run's spans to its collectors as OTLP/HTTP protobuf (docs/telemetry.md#export).
// The bytes are OpenTelemetry's own (@opentelemetry/otlp-transformer); the transport is ours,
// because OpenTelemetry's exporters send through Node's http module or the browser's
// XMLHttpRequest/sendBeacon, none of which a Worker has: here it is one `fetch` per collector,
// each attempt bounded by a timeout, retried a few times on the failures OTLP calls retryable.
// It runs after the turn's response (in waitUntil) and never throws, so a collector that is
// down, slow or refusing costs a turn nothing.
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

export interface OtlpTarget {
  /** Who configured it, for the log line of a failure: "deployment" or "team". */
  label: string;
  /** The collector's base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** Its headers (secrets: never logged), opened only when spans are sent. */
  headers: () => Promise<Record<string, string>>;
}

export interface ExportOptions {
  attempts?: number;
  timeoutMs?: number;
  /** The wait before the second attempt; doubled for each further one. */
  backoffMs?: number;
}

const DEFAULTS = { attempts: 3, timeoutMs: 5_000, backoffMs: 500 } satisfies Required<ExportOptions>;

/** The statuses OTLP/HTTP asks a client to retry, besides a connection that failed or timed out. */
const RETRYABLE = new Set([429, 502, 503, 504, 500]);

/** Sends `spans` to every target at once; resolves when each has answered or given up. */
export async function exportSpans(spans: ReadableSpan[], targets: readonly OtlpTarget[], options: ExportOptions = {}): Promise<void> {
  if (spans.length === 0 || targets.length === 0) return;
  const body = ProtobufTraceSerializer.serializeRequest(spans);
  if (!body) return;
  const settings = { ...DEFAULTS, ...options };
  await Promise.all(targets.map((target) => sendTo(target, body, settings)));
}

async function sendTo(target: OtlpTarget, body: Uint8Array, settings: Required<ExportOptions>): Promise<void> {
  let headers: Record<string, string>;
  try {
    headers = await target.headers();
  } catch {
    console.error(`byok-edge: traces not sent to the ${target.label} collector: its headers could not be opened`);
    return;
  }
  const url = `${target.endpoint.replace(/\/+$/, "")}/v1/traces`;
  let last = "";
  for (let attempt = 0; attempt < settings.attempts; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, settings.backoffMs * 2 ** (attempt - 1)));
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "content-type": "application/x-protobuf" },
        body,
        signal: AbortSignal.timeout(settings.timeoutMs),
        redirect: "manual",
      });
      await response.body?.cancel();
      if (response.ok) return;
      last = `HTTP ${response.status}`;
      if (!RETRYABLE.has(response.status)) break;
    } catch (err) {
      last = err instanceof Error && err.name === "TimeoutError" ? `no answer within ${settings.timeoutMs} ms` : "could not connect";
    }
  }
  // The URL may hold a secret (a key in its path or user info): only who configured it is named.
  console.error(`byok-edge: traces not sent to the ${target.label} collector after ${settings.attempts} attempt(s): ${last}`);
}

/**
 * `OTLP_HEADERS` as OpenTelemetry's exporters read `OTEL_EXPORTER_OTLP_HEADERS`: comma-separated
 * `key=value` pairs, each part URL-encoded. A pair without `=` is left out.
 */
export function parseOtlpHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = decoded(pair.slice(0, at).trim());
    const value = decoded(pair.slice(at + 1).trim());
    if (key) headers[key] = value;
  }
  return headers;
}

/** A part as written when it is not valid URL encoding (a value with a bare %). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
