// What the tests' OTLP receiver (otlp-receiver-server.ts) hands back: each span decoded, plainly.
export type SinkMode = "ok" | "fail" | "hang";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a span without a parent. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's StatusCode: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** Start and end, epoch milliseconds (to the microsecond a double holds). */
  startMs: number;
  endMs: number;
  service: string;
  scope: string;
}
