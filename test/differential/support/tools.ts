// A tool subscription that answers the calls routed to it: each call goes to
// the handler as it arrives (calls are handled concurrently, as a delegate
// does); "hold" leaves the completion to the scenario. Ready when the host
// has sent the stream's response headers (its only readiness signal).
import { ConnectError } from "@connectrpc/connect";
import type { CompleteToolCallRequest, ToolCall } from "../../../src/proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { deferred } from "../../support/deferred.ts";
import { bounded } from "./bounds.ts";
import type { CodeModeClient } from "./targets.ts";

export type ToolReply = { output: unknown } | { error: string } | "hold";
export type ToolHandler = (call: ToolCall) => ToolReply | Promise<ToolReply>;

export interface SubscribeOptions {
  /** Filters as `{name, namespace?}`; none: every tool. */
  toolNames?: { name: string; namespace?: string }[];
  handler?: ToolHandler;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The call's input as JSON, or undefined when the cell passed none. */
export function callInput(call: ToolCall): unknown {
  return call.inputJson === undefined ? undefined : JSON.parse(decoder.decode(call.inputJson));
}

export function completion(sessionId: string, invocationId: string, reply: Exclude<ToolReply, "hold">): CompleteToolCallRequest {
  const outcome =
    "error" in reply
      ? { case: "failed" as const, value: { $typeName: "codex.code_mode.v1.ToolCallFailed" as const, message: reply.error } }
      : {
          case: "succeeded" as const,
          value: { $typeName: "codex.code_mode.v1.ToolCallSucceeded" as const, outputJson: encoder.encode(JSON.stringify(reply.output)) },
        };
  return { $typeName: "codex.code_mode.v1.CompleteToolCallRequest", sessionId, invocationId, outcome };
}

/** Tools for scenarios. */
export const tools = {
  /** Answers with the call's own input. */
  echo: (call: ToolCall): ToolReply => ({ output: callInput(call) ?? null }),
  /** Answers with `output`, whatever the input. */
  fixed:
    (output: unknown): ToolHandler =>
    () => ({ output }),
  failing:
    (message: string): ToolHandler =>
    () => ({ error: message }),
};

/** One deferred per tool name: "slow" calls wait for `release("slow", reply)`. */
export function gatedTools(fallback: ToolHandler = tools.echo) {
  const gates = new Map<string, ReturnType<typeof deferred<ToolReply>>>();
  const gate = (name: string) => {
    let entry = gates.get(name);
    if (!entry) {
      entry = deferred<ToolReply>();
      gates.set(name, entry);
    }
    return entry;
  };
  return {
    gate: (name: string) => gate(name),
    release: (name: string, reply: ToolReply = { output: null }) => gate(name).resolve(reply),
    handler:
      (gated: string[]): ToolHandler =>
      (call) =>
        gated.includes(call.toolName?.name ?? "") ? gate(call.toolName!.name).promise : fallback(call),
  };
}

export class ToolSubscription {
  readonly calls: ToolCall[] = [];
  readonly ended: Promise<{ error?: ConnectError }>;
  readonly completions: Promise<void>[] = [];
  #waiters: { match: (call: ToolCall) => boolean; resolve: (call: ToolCall) => void }[] = [];
  #stream = new AbortController();

  private constructor(
    readonly client: CodeModeClient,
    readonly sessionId: string,
    options: SubscribeOptions,
    headers: (header: Headers) => void,
  ) {
    const handler = options.handler ?? tools.echo;
    const stream = client.subscribeToToolCalls(
      { sessionId, toolNames: options.toolNames ?? [] },
      { signal: this.#stream.signal, onHeader: headers },
    );
    this.ended = (async () => {
      try {
        for await (const call of stream) {
          this.calls.push(call);
          for (const waiter of this.#waiters.filter((w) => w.match(call))) {
            this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
            waiter.resolve(call);
          }
          this.completions.push(this.#answer(call, handler));
        }
        return {};
      } catch (error) {
        return { error: ConnectError.from(error) };
      }
    })();
  }

  async #answer(call: ToolCall, handler: ToolHandler): Promise<void> {
    const reply = await handler(call);
    if (reply === "hold") return;
    await this.complete(call, reply).catch(() => {}); // the cell may be gone; its scenario checks what matters
  }

  /** Subscribes and resolves once the host has registered the subscription (its headers say so: `accepted`). */
  static async open(
    client: CodeModeClient,
    sessionId: string,
    accepted: (header: Headers) => boolean,
    options: SubscribeOptions = {},
  ): Promise<ToolSubscription> {
    const ready = deferred<void>();
    const subscription = new ToolSubscription(client, sessionId, options, (header) => {
      if (accepted(header)) ready.resolve();
    });
    void subscription.ended.then(({ error }) => ready.reject(error ?? new Error("the subscription ended before its headers")));
    await bounded(ready.promise, "the subscription's response headers");
    return subscription;
  }

  complete(call: ToolCall, reply: Exclude<ToolReply, "hold">): Promise<unknown> {
    return bounded(this.client.completeToolCall(completion(this.sessionId, call.invocationId, reply)), "CompleteToolCall");
  }

  /** The first call (received already or later) that `match` accepts. */
  call(match: (call: ToolCall) => boolean = () => true, what = "a tool call"): Promise<ToolCall> {
    const seen = this.calls.find(match);
    if (seen) return Promise.resolve(seen);
    const found = deferred<ToolCall>();
    this.#waiters.push({ match, resolve: found.resolve });
    return bounded(
      Promise.race([
        found.promise,
        this.ended.then(({ error }) => {
          throw new Error(`the subscription ended (${error?.message ?? "OK"}) before ${what}`);
        }),
      ]),
      what,
    );
  }

  callNamed(name: string): Promise<ToolCall> {
    return this.call((call) => call.toolName?.name === name, `a call of ${name}`);
  }

  /** The client closes the stream. */
  close(): void {
    this.#stream.abort();
  }
}
