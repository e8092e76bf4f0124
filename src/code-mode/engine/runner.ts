// Where a cell's JavaScript runs: the session's state machine talks to this interface only,
// so that it stays platform-agnostic. The Worker Loader implementation is loader-runner.ts.
import type { ContentItem } from "./engine-types.ts";

/** What the cell's isolate is given. */
export interface CellLaunch {
  cellId: string;
  /** The module text of `exec_main.mjs` (cell-source.ts). */
  moduleText: string;
  /** The enabled tools in order, by their `tools.*` name. */
  tools: { name: string; description: string }[];
  /** The stored values at the cell's start, by key. */
  snapshot: Record<string, unknown>;
}

/** What the isolate reports, in the order it happened. */
export type CellEvent = { type: "item"; item: ContentItem } | { type: "notify"; text: string } | { type: "yield" };

export type ToolReply = { ok: true; outputJson: string | undefined } | { ok: false; message: string };

/** How the isolate reaches the cell's state machine. */
export interface CellCallbacks {
  /** The runtime runs the cell's code (the yield timer starts now). */
  started(): void;
  events(events: CellEvent[]): void;
  /** `tools.*` call number `index` of CellLaunch.tools, with the argument as JSON (absent: none). */
  callTool(index: number, inputJson: string | undefined): Promise<ToolReply>;
}

export type CellRunResult =
  /** The module settled or called exit(): its writes, and its error if it threw. */
  | { kind: "completed"; writes: Record<string, unknown>; errorText?: string }
  /** stop() was called and the isolate returned. */
  | { kind: "stopped" }
  /** The platform stopped a runaway isolate (the CPU limit): treated as a termination. */
  | { kind: "limit-exceeded"; reason: string }
  /** The isolate ended without a result. */
  | { kind: "crashed"; reason: string };

export interface RunningCell {
  /** Never rejects. */
  result: Promise<CellRunResult>;
  /** Ends the run (its pending awaits are abandoned) and releases the isolate. */
  stop(): Promise<void>;
}

export interface CellRunner {
  start(launch: CellLaunch, callbacks: CellCallbacks): RunningCell;
  /** V8's message for a source acorn rejected, as Codex reports it ("SyntaxError: …"), if the platform gives one. */
  syntaxError(source: string): Promise<string | undefined>;
}
