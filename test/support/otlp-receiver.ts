// Test-side handle on the OTLP receiver (otlp-receiver-server.ts, in Node): a sink per test,
// its endpoint for a team's or the deployment's setting, and the spans it decoded.
import { env } from "cloudflare:workers";
import type { ReceivedSpan, SinkMode } from "./otlp-receiver-types.ts";

export type { ReceivedSpan } from "./otlp-receiver-types.ts";

export interface Sink {
  /** The collector's base URL, as `otlp.endpoint` or OTLP_ENDPOINT take it. */
  endpoint: string;
  /** What it received, once at least `min.spans` spans and `min.attempts` posts arrived (or 10 s passed). */
  received(min?: {
    spans?: number;
    attempts?: number;
  }): Promise<{ spans: ReceivedSpan[]; attempts: number; headers: Record<string, string> }>;
}

function receiverUrl(): string {
  const url = (env as unknown as { OTLP_RECEIVER_URL?: string }).OTLP_RECEIVER_URL;
  if (!url) throw new Error("OTLP_RECEIVER_URL is not bound; is the OTLP receiver started in global setup?");
  return url;
}

export async function createSink(mode: SinkMode = "ok", id: string = crypto.randomUUID()): Promise<Sink> {
  const base = `${receiverUrl()}/sinks/${id}`;
  const put = await fetch(base, { method: "PUT", body: JSON.stringify({ mode }), headers: { "content-type": "application/json" } });
  if (!put.ok) throw new Error(`OTLP receiver: PUT ${base} → ${put.status}`);
  return {
    endpoint: base,
    received: async (min = {}) => {
      const query = new URLSearchParams({ min_spans: String(min.spans ?? 0), min_attempts: String(min.attempts ?? 0) });
      const res = await fetch(`${base}?${query}`);
      return (await res.json()) as { spans: ReceivedSpan[]; attempts: number; headers: Record<string, string> };
    },
  };
}
