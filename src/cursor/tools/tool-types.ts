// The contract between the tool round (which talks to the Cursor client) and
// each tool (which knows its arguments, its exec message and its UI card).
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  AgentServerMessage,
  ExecClientMessage,
  ExecServerMessageSchema,
  InteractionQuerySchema,
  InteractionResponse,
  ToolCall,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import type { ImagePart, ToolDefinition } from "../../provider/types.ts";
import type { SearchConfig } from "../search/search-types.ts";
import type { SpanScope } from "../../telemetry/run-trace.ts";

/** The oneof of an ExecServerMessage, e.g. `{ case: "readArgs", value: {...} }`. */
export type ExecArgs = MessageInitShape<typeof ExecServerMessageSchema>["message"];
/** The oneof of an InteractionQuery, e.g. `{ case: "askQuestionInteractionQuery", value: {...} }`. */
export type InteractionQueryInit = MessageInitShape<typeof InteractionQuerySchema>["query"];

/** What the client sent for one exec id, in arrival order. */
export type ExecEvent = { kind: "message"; message: ExecClientMessage } | { kind: "stream_close" } | { kind: "throw"; error: string };

export interface ExecCall {
  /** The numeric id of this exec (unique per request, never reused). */
  readonly id: number;
  /** The next event for this exec; rejects with the abort reason when the run stops. */
  next(): Promise<ExecEvent>;
}

export interface ClientChannel {
  /** Sends an exec_server_message and returns a handle on its replies. */
  exec(args: ExecArgs, options?: { toolCallId?: string; acceptHookAdditionalContexts?: boolean; detached?: boolean }): ExecCall;
  /** Sends an interaction_query and resolves with the client's interaction_response. */
  interaction(query: InteractionQueryInit): Promise<InteractionResponse>;
}

/** Per-conversation state a tool may read or change (TodoWrite, SwitchMode). */
export interface ToolSessionState {
  todos: { id: string; content: string; status: string }[];
  mode: number;
}

export interface ToolContext {
  toolCallId: string;
  modelCallId: string;
  conversationId: string;
  requestId: string;
  client: ClientChannel;
  /** Sends an update right away (shell output, edit streaming). */
  emit(message: AgentServerMessage): void;
  signal: AbortSignal;
  state: ToolSessionState;
  /** The configured model a Task should run its subagent on (Task model, overrides, inherit). */
  resolveSubagentModel(requested: string | undefined, subagentType: string): string;
  /** The web search backend, when one is configured (WebSearch is offered only then). */
  search?: SearchConfig;
  /** A blob the client holds (get_blob); rejects with an AppError naming `what` when it cannot be had. */
  readBlob(id: Uint8Array, what: string): Promise<Uint8Array>;
  /** The call's execute_tool span when the run is traced: a code-mode cell's own tool calls go under it. */
  span?: SpanScope | undefined;
}

export interface ToolResult {
  /** What the model sees as the tool result. */
  content: string;
  isError: boolean;
  /** The typed UI card with args and result; the round adds id and timestamps. */
  card: ToolCall;
  /** Images the model sees with the text (an image file read, an MCP tool's image content). */
  images?: ImagePart[];
}

export type ParsedArgs<A> = { ok: true; args: A } | { ok: false; error: string };

export interface Tool<A = unknown> {
  /** The name the model calls. */
  readonly name: string;
  readonly definition: ToolDefinition;
  /** The typed card before arguments are known (first partial_tool_call). */
  emptyCard(): ToolCall;
  /** Validates the model's JSON arguments; a failure becomes a tool error for the model. */
  parse(argumentsJson: string): ParsedArgs<A>;
  /** The card with arguments, for tool_call_started. */
  startedCard(args: A, toolCallId: string): ToolCall;
  run(args: A, ctx: ToolContext): Promise<ToolResult>;
}
