// One Execute call: its stream read in the background, with `started` and the
// outcome as separate promises, and the caller able to go away (abort) at any
// point. Defaults as the seed suite's: yield 5 000 ms, 1 000 output tokens.
import { randomUUID } from "node:crypto";
import { ConnectError } from "@connectrpc/connect";
import {
  type ExecuteEvent,
  type ExecutionOutcome,
  type ExecutionStarted,
  type ToolDefinition,
  ToolKind,
} from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { deferred } from "../../support/deferred.ts";
import { bounded } from "./bounds.ts";
import type { CodeModeClient } from "./targets.ts";

export interface ExecuteOptions {
  executionId?: string;
  toolCallId?: string;
  /** undefined: the seed default 5 000; null: not sent (the host's default). */
  yieldTimeMs?: number | null;
  maxOutputTokens?: number;
  enabledTools?: ToolDefinition[];
  /** Called when the response headers arrive (before `started` is read). */
  onHeader?: () => void;
}

export interface ExecuteEnd {
  events: ExecuteEvent[];
  error?: ConnectError;
}

export interface Execution {
  executionId: string;
  /** Rejects if the stream ended without `started`. Bounded from the call. */
  started(): Promise<ExecutionStarted>;
  /** Rejects if the stream failed or ended without an outcome. Bounded from the call. */
  outcome(ms?: number): Promise<ExecutionOutcome>;
  /** Every event, and how the stream ended. Bounded from the call. */
  finished(ms?: number): Promise<ExecuteEnd>;
  /** The caller goes away (the stream is cancelled). */
  abort(): void;
}

export function execute(client: CodeModeClient, sessionId: string, source: string, options: ExecuteOptions = {}): Execution {
  const executionId = options.executionId ?? randomUUID();
  const caller = new AbortController();
  const started = deferred<ExecutionStarted>();
  const outcome = deferred<ExecutionOutcome>();
  const yieldTimeMs = options.yieldTimeMs === null ? undefined : BigInt(options.yieldTimeMs ?? 5_000);
  const stream = client.execute(
    {
      sessionId,
      executionId,
      toolCallId: options.toolCallId ?? "call-1",
      source,
      enabledTools: options.enabledTools ?? [],
      yieldTimeMs,
      maxOutputTokens: BigInt(options.maxOutputTokens ?? 1_000),
    },
    { signal: caller.signal, onHeader: options.onHeader },
  );
  const finished = (async (): Promise<ExecuteEnd> => {
    const events: ExecuteEvent[] = [];
    try {
      for await (const event of stream) {
        events.push(event);
        if (event.event.case === "started") started.resolve(event.event.value);
        if (event.event.case === "outcome") outcome.resolve(event.event.value);
      }
      return { events };
    } catch (error) {
      return { events, error: ConnectError.from(error) };
    }
  })();
  void finished.then(({ events, error }) => {
    const why = error ? `Execute failed: [${error.code}] ${error.rawMessage}` : `Execute ended after ${events.length} event(s)`;
    started.reject(new Error(`${why} without started`));
    outcome.reject(error ?? new Error(`${why} without an outcome`));
  });
  // Scenarios that expect a failure await `finished`; keep the others quiet.
  started.promise.catch(() => {});
  outcome.promise.catch(() => {});
  return {
    executionId,
    started: () => bounded(started.promise, "Execute's started event"),
    outcome: (ms) => bounded(outcome.promise, "Execute's outcome", ms),
    finished: (ms) => bounded(finished, "the end of the Execute stream", ms),
    abort: () => caller.abort(),
  };
}

/** A function tool as a cell sees it on `tools` (default namespace). */
export function functionTool(name: string, options: { namespace?: string; description?: string; kind?: ToolKind } = {}): ToolDefinition {
  return {
    $typeName: "codex.code_mode.v1.ToolDefinition",
    name,
    toolName: { $typeName: "codex.code_mode.v1.ToolName", name, namespace: options.namespace },
    description: options.description ?? `the ${name} tool`,
    kind: options.kind ?? ToolKind.FUNCTION,
  };
}
