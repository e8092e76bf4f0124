// The spans of one run (docs/telemetry.md#traces). While the run goes, a span is a plain record
// (name, attributes, times, children): the turn pays for an object, not for the SDK's attribute
// checks and ids. When the run ends, after its end-stream, OpenTelemetry's own tracer
// (@opentelemetry/sdk-trace) makes the spans from the records, with their recorded times, for
// one export (send-trace.ts). Ids are the SDK's random ones, except where another request must
// find a span without asking this one: a run's trace id comes from the request that began the
// turn, and a tool call's span id from its request and call id, so a subagent's run (a request
// of its own, maybe in another object) joins its parent's trace under the Task that started it.
import { type Attributes, type Context, context, SpanKind, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { RandomIdGenerator, type ReadableSpan, TracerProvider } from "@opentelemetry/sdk-trace";
import { fingerprint } from "../core/fingerprint.ts";

export { SpanKind };

/** A place new spans go under: a run, a provider call, a tool call. */
export interface SpanScope {
  /** Starts a span under this one; `spanId`: a fixed id (see toolSpanId), else a random one. */
  child(name: string, attributes: Attributes, options?: { kind?: SpanKind; spanId?: string }): TraceSpan;
}

export interface TraceSpan extends SpanScope {
  set(attributes: Attributes): void;
  /** Marks the span failed with its `error.type` (a kind, never a message: messages may quote the prompt). */
  fail(errorType: string): void;
  /** `atMs`: when it ended, if before now (epoch ms). */
  end(atMs?: number): void;
}

/** The next id the tracer hands out, when a caller fixed it; the SDK starts a span synchronously, so nothing comes between. */
const fixed: { traceId?: string; spanId?: string } = {};
const random = new RandomIdGenerator();

const provider = new TracerProvider({
  resource: resourceFromAttributes({ "service.name": "byok-edge" }),
  idGenerator: {
    generateTraceId: () => take("traceId") ?? random.generateTraceId(),
    generateSpanId: () => take("spanId") ?? random.generateSpanId(),
  },
});
const tracer = provider.getTracer("byok-edge");

function take(which: "traceId" | "spanId"): string | undefined {
  const id = fixed[which];
  fixed[which] = undefined;
  return id;
}

/**
 * Where a run's span hangs: a new trace of its own, or (a subagent's) under its parent's Task span
 * in the parent's trace; a standalone code-mode cell's, as a root in its session's trace.
 */
export type RunParent =
  | { kind: "root"; requestId: string }
  | { kind: "task"; requestId: string; toolCallId: string }
  | { kind: "session"; sessionId: string };

/** A span as the run records it; times in epoch milliseconds (given to the SDK as Dates: it reads a bare number below performance.now() as a performance time). */
interface SpanRecord {
  name: string;
  kind: SpanKind;
  attributes: Attributes;
  startMs: number;
  endMs?: number;
  errorType?: string;
  spanId?: string;
  children: SpanRecord[];
}

/**
 * One run's spans, kept by the run's object, so a run exports its spans and no other run's, even
 * one in the same trace (a subagent beside its parent), and nothing outlives the run object.
 */
export class RunTrace {
  readonly #parent: RunParent;
  readonly #root: SpanRecord;
  #traceId: string | undefined;
  #taken = false;
  readonly root: TraceSpan;

  /** Its trace's id (32 hex digits), for the run's log line. */
  get traceId(): string {
    const parent = this.#parent;
    this.#traceId ??= parent.kind === "session" ? sessionTraceIdOf(parent.sessionId) : traceIdOf(parent.requestId);
    return this.#traceId;
  }

  /** `startMs`: when the run began, if before now (a code-mode cell traced when it stopped). */
  constructor(name: string, attributes: Attributes, parent: RunParent, { startMs }: { startMs?: number } = {}) {
    this.#parent = parent;
    this.#root = record(name, SpanKind.INTERNAL, attributes);
    if (startMs !== undefined) this.#root.startMs = Math.min(startMs, this.#root.startMs);
    this.root = scope(this.#root);
  }

  /** Ends the run's span and makes the SDK's spans of every record that ended, once, for one export. */
  finish(): ReadableSpan[] {
    this.root.end();
    if (this.#taken) return [];
    this.#taken = true;
    const parent = this.#parent;
    const parentContext =
      parent.kind !== "task"
        ? context.active()
        : trace.setSpanContext(context.active(), {
            traceId: this.traceId,
            spanId: toolSpanId(parent.requestId, parent.toolCallId),
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          });
    if (parent.kind !== "task") fixed.traceId = this.traceId;
    const ended: ReadableSpan[] = [];
    make(this.#root, parentContext, ended);
    return ended;
  }
}

function record(name: string, kind: SpanKind, attributes: Attributes, spanId?: string): SpanRecord {
  return { name, kind, attributes: { ...attributes }, startMs: Date.now(), children: [], ...(spanId && { spanId }) };
}

/** A span the run writes to; a span its run never ends is never exported. */
function scope(span: SpanRecord): TraceSpan {
  return {
    child(name, attributes, options = {}) {
      const child = record(name, options.kind ?? SpanKind.INTERNAL, attributes, options.spanId);
      span.children.push(child);
      return scope(child);
    },
    set(attributes) {
      Object.assign(span.attributes, attributes);
    },
    fail(errorType) {
      span.errorType = errorType;
    },
    end(atMs) {
      span.endMs ??= Math.max(span.startMs, atMs ?? Date.now());
    },
  };
}

/** The SDK's span of `span` under `parentContext`, then its children's; the ended ones go to `ended`. */
function make(span: SpanRecord, parentContext: Context, ended: ReadableSpan[]): void {
  if (span.spanId) fixed.spanId = span.spanId;
  const made = tracer.startSpan(
    span.name,
    { kind: span.kind, attributes: span.attributes, startTime: new Date(span.startMs) },
    parentContext,
  );
  if (span.errorType !== undefined) {
    made.setAttribute("error.type", span.errorType);
    made.setStatus({ code: SpanStatusCode.ERROR });
  }
  const under = trace.setSpan(context.active(), made);
  for (const child of span.children) make(child, under, ended);
  if (span.endMs === undefined) return;
  made.end(new Date(span.endMs));
  // The SDK's Span is also its ReadableSpan.
  ended.push(made as unknown as ReadableSpan);
}

/** @internal The trace id of the turn a request began (32 hex digits); exported for the tests. */
export function traceIdOf(requestId: string): string {
  return fingerprint(`byok-edge trace\u0000${requestId}`, 32);
}

/** @internal The trace id of a standalone code-mode session's cells (32 hex digits); exported for the tests. */
export function sessionTraceIdOf(sessionId: string): string {
  return fingerprint(`byok-edge code-mode trace\u0000${sessionId}`, 32);
}

/** The span id of one tool call of a request (16 hex digits): a subagent started by it hangs under it. */
export function toolSpanId(requestId: string, toolCallId: string): string {
  return fingerprint(`byok-edge tool\u0000${requestId}\u0000${toolCallId}`, 16);
}
