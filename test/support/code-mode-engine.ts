// The engine's test parts: a delegate that records what a cell asked for and answers
// tool calls from a script (blocking ones until the test releases them), and stored
// values kept in memory. The runner is the real one, on the test runtime's LOADER.
import { env } from "cloudflare:test";
import { LoaderCellRunner } from "../../src/code-mode/engine/loader-runner.ts";
import { CodeModeSession } from "../../src/code-mode/engine/session.ts";
import type {
  CellDelegate,
  CellToolCall,
  ExecuteRequest,
  SessionLimits,
  StoredValues,
  ToolDefinition,
} from "../../src/code-mode/engine/engine-types.ts";
import { type Deferred, deferred } from "./deferred.ts";

export class MemoryValues implements StoredValues {
  values: Record<string, unknown> = {};
  commits: Record<string, unknown>[] = [];
  #committed: Deferred<void>[] = [];
  snapshot(): Record<string, unknown> {
    return structuredClone(this.values);
  }
  commit(writes: Record<string, unknown>): void {
    this.commits.push(writes);
    Object.assign(this.values, structuredClone(writes));
    for (const waiter of this.#committed.splice(0)) waiter.resolve();
  }

  /** Resolves at the next commit (a cell completed). */
  nextCommit(): Promise<void> {
    const waiter = deferred<void>();
    this.#committed.push(waiter);
    return waiter.promise;
  }
}

type ToolAnswer = (call: CellToolCall, signal: AbortSignal) => Promise<unknown> | unknown;

export interface PendingCall {
  call: CellToolCall;
  signal: AbortSignal;
  reply: Deferred<unknown>;
}

export class RecordingDelegate implements CellDelegate {
  calls: CellToolCall[] = [];
  notifications: { callId: string; cellId: string; text: string }[] = [];
  closed: string[] = [];
  /** Calls of tools without a scripted answer, in arrival order; each waits for the test. */
  pending: PendingCall[] = [];
  readonly #answers: Record<string, ToolAnswer>;
  #taken = 0;
  #takers: Deferred<PendingCall>[] = [];
  #closedWaiters: { cellId: string; done: Deferred<void> }[] = [];

  constructor(answers: Record<string, ToolAnswer> = {}) {
    this.#answers = { echo: (call) => call.input ?? null, ...answers };
  }

  invokeTool(call: CellToolCall, signal: AbortSignal): Promise<unknown> {
    this.calls.push(call);
    const answer = this.#answers[call.toolName.name];
    if (answer === undefined) {
      const reply = deferred<unknown>();
      this.pending.push({ call, signal, reply });
      this.#handOut();
      return reply.promise;
    }
    return Promise.resolve().then(() => answer(call, signal));
  }

  async notify(notification: { callId: string; cellId: string; text: string }): Promise<void> {
    this.notifications.push(notification);
  }

  cellClosed(cellId: string): void {
    this.closed.push(cellId);
    for (const waiter of this.#closedWaiters.filter((w) => w.cellId === cellId)) waiter.done.resolve();
  }

  /** The next call of a tool without a scripted answer (each call is handed out once). */
  nextBlockedCall(): Promise<PendingCall> {
    const taker = deferred<PendingCall>();
    this.#takers.push(taker);
    this.#handOut();
    return taker.promise;
  }

  #handOut(): void {
    while (this.#takers.length > 0 && this.#taken < this.pending.length) {
      this.#takers.shift()?.resolve(this.pending[this.#taken++] as PendingCall);
    }
  }

  closedCell(cellId: string): Promise<void> {
    if (this.closed.includes(cellId)) return Promise.resolve();
    const done = deferred<void>();
    this.#closedWaiters.push({ cellId, done });
    return done.promise;
  }
}

export function tool(name: string, kind: ToolDefinition["kind"] = "function"): ToolDefinition {
  return { name, toolName: { name }, description: `the ${name} tool`, kind };
}

export function request(source: string, extra: Partial<ExecuteRequest> = {}): ExecuteRequest {
  return { toolCallId: "call-1", source, enabledTools: [], yieldTimeMs: 5_000, maxOutputTokens: 1_000, ...extra };
}

export function newSession(limits: SessionLimits = {}, values: StoredValues = new MemoryValues(), cellIdPrefix = ""): CodeModeSession {
  return new CodeModeSession({ runner: new LoaderCellRunner(env.LOADER), values, limits, cellIdPrefix });
}

export function text(value: string) {
  return { type: "input_text" as const, text: value };
}
