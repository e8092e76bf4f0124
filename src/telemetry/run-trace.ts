// The spans of one run (docs/telemetry.md#traces), recorded with OpenTelemetry's own tracer
// (@opentelemetry/sdk-trace) and kept by the run until it ends, then exported as one
// batch (otlp-export.ts). Ids are the SDK's random ones, except where another request must
// find a span without asking this one: a run's trace id comes from the request that began the
// turn, and a tool call's span id from its request and call id, so a subagent's run (a request
// of its own, maybe in another object) joins its parent's trace under the Task that started it.
import { type Attributes, context, type Span, SpanKind, SpanStatusCode, trace, TraceFlags } from "@opentelemetry/api";
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
  end(): void;
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

/** Where a run's span hangs: a new trace of its own, or (a subagent's) under its parent's Task span in the parent's trace. */
export type RunParent = { kind: "root"; requestId: string } | { kind: "task"; requestId: string; toolCallId: string };

/**
 * One run's spans. Each span the run starts is kept in its own list when it ends (the SDK's span
 * is its ReadableSpan), so a run exports its spans and no other run's, even one in the same
 * trace (a subagent beside its parent), and nothing outlives the run object.
 */
export class RunTrace {
  readonly #traceId: string;
  readonly #ended: ReadableSpan[] = [];
  #taken = false;
  readonly root: TraceSpan;

  /** Its trace's id (32 hex digits), for the run's log line. */
  get traceId(): string {
    return this.#traceId;
  }

  constructor(name: string, attributes: Attributes, parent: RunParent) {
    this.#traceId = traceIdOf(parent.requestId);
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
    this.root = wrap(tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parentContext), this.#ended);
  }

  /** Ends the run's span and hands over every span of its trace that ended so far, for one export. */
  finish(): ReadableSpan[] {
    this.root.end();
    if (this.#taken) return [];
    this.#taken = true;
    return this.#ended.splice(0);
  }
}

/** A span that joins `ended` when it ends; a span its run never ends is never exported. */
function wrap(span: Span, ended: ReadableSpan[]): TraceSpan {
  let done = false;
  return {
    child(name, attributes, options = {}) {
      if (options.spanId) fixed.spanId = options.spanId;
      return wrap(
        tracer.startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes }, trace.setSpan(context.active(), span)),
        ended,
      );
    },
    set(attributes) {
      span.setAttributes(attributes);
    },
    fail(errorType) {
      span.setAttribute("error.type", errorType);
      span.setStatus({ code: SpanStatusCode.ERROR });
    },
    end() {
      if (done) return;
      done = true;
      span.end();
      // The SDK's Span is also its ReadableSpan.
      ended.push(span as unknown as ReadableSpan);
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
