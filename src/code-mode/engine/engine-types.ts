// The cell model's vocabulary (docs/code-mode.md#cells), shared by the session
// engine, the gRPC host that serves it (src/code-mode/host) and code mode in
// Cursor runs (src/cursor/code-mode). Plain data only: no protobuf types here.

/** One output item of a cell, tagged as Codex tags them. */
export type ContentItem =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail?: ImageDetail }
  /** From `audio()` or an MCP audio block: a data URL (docs/code-mode.md#output-content). */
  | { type: "input_audio"; audio_url: string };

export type ImageDetail = "auto" | "low" | "high" | "original";

export type ToolKind = "function" | "freeform";

export interface ToolName {
  name: string;
  /** Absent: the default namespace. */
  namespace?: string;
}

export interface ToolDefinition {
  /** The name the cell calls (normalised to a JS identifier on `tools`). */
  name: string;
  toolName: ToolName;
  description: string;
  kind: ToolKind;
  inputSchema?: unknown;
  outputSchema?: unknown;
}

export interface ExecuteRequest {
  /** The model's exec call id; notifications carry it as their call id. */
  toolCallId: string;
  source: string;
  enabledTools: ToolDefinition[];
  /** Default 10 000 (docs/code-mode.md#yield-timer). */
  yieldTimeMs?: number;
  /** Carried for the model layer; the engine returns all output. */
  maxOutputTokens?: number;
}

/** What one observation of a cell returns. */
export type RuntimeResponse =
  | { kind: "yielded"; cellId: string; items: ContentItem[] }
  | { kind: "terminated"; cellId: string; items: ContentItem[] }
  | { kind: "completed"; cellId: string; items: ContentItem[]; errorText?: string };

export type WaitOutcome =
  | { kind: "live"; response: RuntimeResponse }
  /** Unknown or already closed: completed with `exec cell {id} not found`. */
  | { kind: "missing"; response: RuntimeResponse & { kind: "completed" } };

/** One `tools.x(...)` call made by a cell. */
export interface CellToolCall {
  cellId: string;
  /** "tool-1", "tool-2", … per cell. */
  runtimeToolCallId: string;
  toolName: ToolName;
  toolKind: ToolKind;
  /** Absent when the cell passed no argument. */
  input?: unknown;
}

/**
 * Where a cell's calls go, per execution (held across yields). The gRPC host
 * routes them to tool subscriptions; a Cursor run relays them to the client.
 */
export interface CellDelegate {
  /** Resolves with the tool's JSON output; rejects with the message string the cell's promise rejects with. */
  invokeTool(call: CellToolCall, signal: AbortSignal): Promise<unknown>;
  /** A failure is swallowed (the cell goes on). */
  notify(notification: { callId: string; cellId: string; text: string }, signal: AbortSignal): Promise<void>;
  /** The cell closed: its result was delivered, or it was retired. */
  cellClosed(cellId: string): void;
}

/** Session-wide limits from OpenSession. */
export interface SessionLimits {
  maxYieldTimeMs?: number;
  /** Accepted and not enforced (docs/code-mode.md#limits). */
  maxHeapSizeBytes?: number;
}

/** The session's stored values: JSON by key, snapshot at a cell's start, committed on its completion. */
export interface StoredValues {
  snapshot(): Record<string, unknown>;
  commit(writes: Record<string, unknown>): void;
}
