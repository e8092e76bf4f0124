// Code mode of one conversation (docs/code-mode.md#cursor-runs): one CodeModeSession for
// the object's life, its stored values and generation in SQLite, the run whose client
// relays the cells' tool calls, and which run a live cell belongs to. A cancelled or
// replaced run terminates its cells; a yielded cell outlives its model step, and its turn.
import {
  CellLimitError,
  CellRuntimeError,
  SessionClosedError,
  SHUTTING_DOWN,
  WaitCancelledError,
} from "../../code-mode/engine/engine-errors.ts";
import type { CodeModeSession } from "../../code-mode/engine/session.ts";
import type { CellDelegate, RuntimeResponse, StoredValues, ToolDefinition } from "../../code-mode/engine/engine-types.ts";
import type { CodeModeStore } from "../store/code-mode-cells.ts";
import type { ExecSource } from "./pragma.ts";
import type { RunRelay } from "./relay.ts";
import { untilAborted } from "../../code-mode/engine/until-aborted.ts";

/** The first exec or wait after the object restarted with cells live gets this, once (Codex's text). */
const RUNTIME_REPLACED =
  "The exec runtime was replaced. Stored values and running cells were lost. Prior external tool operations may have completed; inspect their results before retrying. You may continue with a fresh exec call.";
const STALE_GENERATION = "cell belongs to a stale code-mode host generation";
/** Notifications kept for a cell nobody observes; older ones are dropped beyond this. */
const HELD_NOTIFICATIONS_MAX = 64;

export type OpenSession = (options: { values: StoredValues; cellIdPrefix: string }) => CodeModeSession;

/** What an exec or wait call gets: the cell's response, or a refusal the model reads as the call's error. */
export type Observation = { kind: "response"; response: RuntimeResponse } | { kind: "refused"; text: string };

/** The exec or wait call observing a cell: a notification becomes an extra output of it. */
export interface Observer {
  callId: string;
  toolName: string;
}

interface Opened {
  session: CodeModeSession;
  generation: number;
  noticePending: boolean;
}

export class ConversationCodeMode {
  #opened: Opened | undefined;
  #relay: RunRelay | undefined;
  readonly #relayWaiters = new Set<() => void>();
  /** Live cells, each with the run that last started or observed it. */
  readonly #owners = new Map<string, string>();
  readonly #observers = new Map<string, { observer: Observer; relay: RunRelay }>();
  readonly #held = new Map<string, string[]>();
  /** Terminations of a cancelled run's cells; the next call waits for them. */
  #settling: Promise<unknown> = Promise.resolve();
  #shuttingDown = false;

  constructor(
    readonly store: CodeModeStore,
    readonly openSession: OpenSession,
  ) {}

  async execute(input: {
    source: ExecSource;
    toolCallId: string;
    enabledTools: ToolDefinition[];
    relay: RunRelay;
    observer: Observer;
    signal: AbortSignal;
  }): Promise<Observation> {
    const opened = await this.#ready();
    if (typeof opened === "string") return { kind: "refused", text: opened };
    this.#attach(input.relay);
    let started: ReturnType<CodeModeSession["execute"]>;
    try {
      started = opened.session.execute(
        {
          toolCallId: input.toolCallId,
          source: input.source.code,
          enabledTools: input.enabledTools,
          ...(input.source.yieldTimeMs !== undefined && { yieldTimeMs: input.source.yieldTimeMs }),
          ...(input.source.maxOutputTokens !== undefined && { maxOutputTokens: input.source.maxOutputTokens }),
        },
        this.#delegate(),
      );
    } catch (err) {
      return refusal(err);
    }
    this.#owners.set(started.cellId, input.relay.runId);
    this.#saveLiveCells();
    // The model stopped waiting for this call (a newer message, a cancel): nobody will learn its id.
    const onAbort = () => started.abandon();
    input.signal.addEventListener("abort", onAbort, { once: true });
    this.#observe(started.cellId, input.observer, input.relay);
    try {
      return { kind: "response", response: await untilAborted(started.initialResponse, input.signal) };
    } catch (err) {
      input.signal.throwIfAborted();
      return refusal(err);
    } finally {
      input.signal.removeEventListener("abort", onAbort);
      this.#observers.delete(started.cellId);
    }
  }

  async wait(input: {
    cellId: string;
    yieldTimeMs: number;
    terminate: boolean;
    relay: RunRelay;
    observer: Observer;
    signal: AbortSignal;
  }): Promise<Observation> {
    const opened = await this.#ready();
    if (typeof opened === "string") return { kind: "refused", text: opened };
    if (generationOf(input.cellId) < opened.generation) return { kind: "refused", text: STALE_GENERATION };
    this.#attach(input.relay);
    if (this.#owners.has(input.cellId)) this.#owners.set(input.cellId, input.relay.runId);
    this.#observe(input.cellId, input.observer, input.relay);
    try {
      const outcome = input.terminate
        ? await opened.session.terminate(input.cellId)
        : await opened.session.wait({ cellId: input.cellId, yieldTimeMs: input.yieldTimeMs }, { cancel: input.signal });
      return { kind: "response", response: outcome.response };
    } catch (err) {
      if (err instanceof WaitCancelledError) input.signal.throwIfAborted();
      return refusal(err);
    } finally {
      if (this.#observers.get(input.cellId)?.observer === input.observer) this.#observers.delete(input.cellId);
    }
  }

  /**
   * Follows a run: when it is cancelled (or replaced) its cells are terminated at once, so a
   * replacing run finds them gone. The returned function ends it: its relay stops relaying.
   */
  track(runId: string, signal: AbortSignal): () => void {
    const onAbort = () => this.#terminateCellsOf(runId);
    signal.addEventListener("abort", onAbort, { once: true });
    return () => {
      signal.removeEventListener("abort", onAbort);
      if (this.#relay?.runId !== runId) return;
      this.#relay.end();
      this.#relay = undefined;
    };
  }

  #terminateCellsOf(runId: string): void {
    const session = this.#opened?.session;
    if (!session) return;
    const owned = [...this.#owners].filter(([, owner]) => owner === runId).map(([cellId]) => cellId);
    // A cell already closing answers with an error; either way it ends.
    const terminations = owned.map((cellId) => session.terminate(cellId).catch(() => undefined));
    this.#settling = Promise.all([this.#settling, ...terminations]);
  }

  /** The object is shutting down: its cells stop. They still count as live, so a restart says they were lost. */
  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    this.#relay?.end();
    await this.#opened?.session.shutdown();
  }

  /** The session, opened on first use in this life of the object; or the one-time replaced notice. */
  async #ready(): Promise<Opened | string> {
    await this.#settling;
    if (this.#shuttingDown) return SHUTTING_DOWN;
    if (!this.#opened) {
      const { generation, replacedNoticePending } = this.store.openGeneration();
      const values: StoredValues = { snapshot: () => this.store.values(), commit: (writes) => this.store.commitValues(writes) };
      const session = this.openSession({ values, cellIdPrefix: generation > 1 ? `g${generation}:` : "" });
      this.#opened = { session, generation, noticePending: replacedNoticePending };
    }
    if (this.#opened.noticePending) {
      this.#opened.noticePending = false;
      this.store.clearReplacedNotice();
      return RUNTIME_REPLACED;
    }
    return this.#opened;
  }

  #attach(relay: RunRelay): void {
    if (this.#relay !== relay && this.#relay && this.#relay.runId !== relay.runId) this.#relay.end();
    this.#relay = relay;
    for (const wake of this.#relayWaiters) wake();
    this.#relayWaiters.clear();
  }

  /** Notifications held for the cell go out first, as extra outputs of the observing call. */
  #observe(cellId: string, observer: Observer, relay: RunRelay): void {
    this.#observers.set(cellId, { observer, relay });
    for (const text of this.#held.get(cellId) ?? []) this.#notify(cellId, text);
    this.#held.delete(cellId);
  }

  #notify(cellId: string, text: string): void {
    const watching = this.#observers.get(cellId);
    if (watching) {
      const { observer, relay } = watching;
      relay.record({ role: "tool", toolCallId: observer.callId, name: observer.toolName, content: text });
      return;
    }
    const held = this.#held.get(cellId) ?? [];
    held.push(text);
    this.#held.set(cellId, held.slice(-HELD_NOTIFICATIONS_MAX));
  }

  #delegate(): CellDelegate {
    return {
      invokeTool: async (call, signal) => (await this.#relayFor(signal)).call(call, signal),
      notify: async (notification) => this.#notify(notification.cellId, notification.text),
      cellClosed: (cellId) => {
        this.#owners.delete(cellId);
        this.#held.delete(cellId);
        this.#saveLiveCells();
      },
    };
  }

  /** The run relaying tool calls now; between runs a cell's call waits for the next one. */
  #relayFor(signal: AbortSignal): Promise<RunRelay> {
    const relay = this.#relay;
    if (relay && !relay.ended) return Promise.resolve(relay);
    return new Promise<RunRelay>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        void this.#relayFor(signal).then(resolve, reject);
      };
      const onAbort = () => {
        this.#relayWaiters.delete(wake);
        reject(signal.reason);
      };
      this.#relayWaiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Written when it changes, so a restart knows whether cells were lost (not during shutdown: they were). */
  #saveLiveCells(): void {
    if (!this.#shuttingDown) this.store.setLiveCells(this.#owners.size);
  }
}

/** `gN:` prefixes a cell id of generation N; unprefixed ids are generation 1. */
function generationOf(cellId: string): number {
  const match = /^g(\d+):/.exec(cellId);
  return match ? Number(match[1]) : 1;
}

/** Engine errors carry Codex's text; the model reads it as the call's error. */
function refusal(err: unknown): Observation {
  if (err instanceof CellRuntimeError || err instanceof CellLimitError) return { kind: "refused", text: err.message };
  if (err instanceof SessionClosedError) return { kind: "refused", text: SHUTTING_DOWN };
  throw err;
}
