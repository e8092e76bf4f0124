// The spans of one run (docs/telemetry.md#traces), recorded with OpenTelemetry's own tracer
// (@opentelemetry/sdk-trace) and kept together until the run ends, then exported as one
// batch (otlp-export.ts). Ids are the SDK's random ones, except where another request must
// find a span without asking this one: a run's trace id comes from the request that began the
// turn, and a tool call's span id from its request and call id, so a subagent's run (a request
// of its own, maybe in another object) joins its parent's trace under the Task that started it.
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { RandomIdGenerator, type ReadableSpan, type SpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
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
  end(): void;
}

/**
 * Finished spans by trace, until a run of it takes them, and how many of its runs are live here
 * (a subagent in the same object shares its parent's trace). A run that never ends cannot hold
 * more than this many traces.
 */
const PENDING_TRACES_MAX = 1_000;
const pending = new Map<string, { spans: ReadableSpan[]; live: number }>();

const collector: SpanProcessor = {
  onStart: () => {},
  onEnd: (span) => pending.get(span.spanContext().traceId)?.spans.push(span),
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

/** The next id the tracer hands out, when a caller fixed it; the SDK starts a span synchronously, so nothing comes between. */
const fixed: { traceId?: string; spanId?: string } = {};
const random = new RandomIdGenerator();

const provider = new TracerProvider({
  resource: resourceFromAttributes({ "service.name": "byok-edge" }),
  spanProcessors: [collector],
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

/** Where a run's span hangs: a new trace of its own, or (a subagent's) under its parent's Task span in the parent's trace. */
export type RunParent = { kind: "root"; requestId: string } | { kind: "task"; requestId: string; toolCallId: string };

export class RunTrace {
  readonly #traceId: string;
  readonly root: TraceSpan;

  /** Its trace's id (32 hex digits), for the run's log line. */
  get traceId(): string {
    return this.#traceId;
  }
  #taken = false;

  constructor(name: string, attributes: Attributes, parent: RunParent) {
    this.#traceId = traceIdOf(parent.requestId);
    const bucket = pending.get(this.#traceId);
    if (bucket) bucket.live++;
    else {
      while (pending.size >= PENDING_TRACES_MAX) pending.delete(pending.keys().next().value!);
      pending.set(this.#traceId, { spans: [], live: 1 });
    }
    const parentContext =
      parent.kind === "root"
        ? context.active()
        : trace.setSpanContext(context.active(), {
            traceId: this.#traceId,
            spanId: toolSpanId(parent.requestId, parent.toolCallId),
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          });
    if (parent.kind === "root") fixed.traceId = this.#traceId;
    this.root = wrap(tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parentContext));
  }

  /** Ends the run's span and hands over every span of its trace that ended so far, for one export. */
  finish(): ReadableSpan[] {
    this.root.end();
    if (this.#taken) return [];
    this.#taken = true;
    const bucket = pending.get(this.#traceId);
    if (!bucket) return [];
    const spans = bucket.spans.splice(0);
    if (--bucket.live <= 0) pending.delete(this.#traceId);
    return spans;
  }
}

function wrap(span: Span): TraceSpan {
  let ended = false;
  return {
    child(name, attributes, options = {}) {
      if (options.spanId) fixed.spanId = options.spanId;
      return wrap(tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, trace.setSpan(context.active(), span)));
    },
    set(attributes) {
      span.setAttributes(attributes);
    },
    fail(errorType) {
      span.setAttribute("error.type", errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
    end() {
      if (ended) return;
      ended = true;
      span.end();
    },
  };
}

/** @internal The trace id of the turn a request began (32 hex digits); exported for the tests. */
export function traceIdOf(requestId: string): string {
  return fingerprint(`byok-edge trace\u0000${requestId}`, 32);
}

/** The span id of one tool call of a request (16 hex digits): a subagent started by it hangs under it. */
export function toolSpanId(requestId: string, toolCallId: string): string {
  return fingerprint(`byok-edge tool\u0000${requestId}\u0000${toolCallId}`, 16);
}
