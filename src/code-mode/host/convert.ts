// The wire messages of codex.code_mode.v1 ↔ the engine's plain data
// (src/code-mode/engine/engine-types.ts). Requests are validated here, field by field in
// Codex's order, with Codex's texts (docs/code-mode.md#errors).
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type {
  ContentItem,
  ExecuteRequest,
  ImageDetail,
  RuntimeResponse,
  SessionLimits,
  ToolDefinition,
  ToolKind,
  ToolName,
  WaitOutcome,
} from "../engine/engine-types.ts";
import {
  ContentItemSchema,
  ExecutionOutcomeSchema,
  ImageDetail as ProtoImageDetail,
  ToolKind as ProtoToolKind,
  ToolNameSchema,
  WaitResponseSchema,
  type ContentItem as ProtoContentItem,
  type ExecuteRequest as ProtoExecuteRequest,
  type ExecutionOutcome,
  type OpenSessionRequest,
  type ToolDefinition as ProtoToolDefinition,
  type ToolName as ProtoToolName,
  type WaitResponse,
} from "../../proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { invalid, requireId, requireName } from "./ids.ts";
import { jsonSyntaxError } from "./serde-json.ts";

/** JSON bytes read with serde_json's rules: a syntax error is invalid_argument "{what}: {serde's text}". */
export function parseJsonBytes(bytes: Uint8Array, what: string): unknown {
  const error = jsonSyntaxError(bytes);
  if (error !== undefined) throw invalid(`${what}: ${error}`);
  return JSON.parse(new TextDecoder().decode(bytes));
}

/** A number from a uint64 field; values beyond 2^53 mean "practically unbounded". */
function fromUint64(value: bigint): number {
  return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
}

export function limitsFromProto(request: OpenSessionRequest): SessionLimits {
  const limits = request.cellExecutionLimits;
  return {
    ...(limits?.maxYieldTimeMs !== undefined && { maxYieldTimeMs: fromUint64(limits.maxYieldTimeMs) }),
    ...(limits?.maxHeapSizeBytes !== undefined && { maxHeapSizeBytes: fromUint64(limits.maxHeapSizeBytes) }),
  };
}

/** A tool name of a subscription filter or a definition; an empty namespace is the default one. */
export function toolNameFromProto(name: ProtoToolName): ToolName {
  requireName("tool name", name.name);
  const namespace = name.namespace === undefined ? "" : requireName("tool namespace", name.namespace);
  return namespace === "" ? { name: name.name } : { name: name.name, namespace };
}

export function toolNameToProto(name: ToolName): ProtoToolName {
  return create(ToolNameSchema, { name: name.name, ...(name.namespace !== undefined && { namespace: name.namespace }) });
}

const KINDS: Record<ToolKind, ProtoToolKind> = { function: ProtoToolKind.FUNCTION, freeform: ProtoToolKind.FREEFORM };

export function toolKindToProto(kind: ToolKind): ProtoToolKind {
  return KINDS[kind];
}

function toolDefinitionFromProto(definition: ProtoToolDefinition): ToolDefinition {
  if (!definition.toolName) throw invalid("tool definition is missing its tool name");
  requireName("tool definition name", definition.name);
  const toolName = toolNameFromProto(definition.toolName);
  let kind: ToolKind;
  if (definition.kind === ProtoToolKind.FUNCTION) kind = "function";
  else if (definition.kind === ProtoToolKind.FREEFORM) kind = "freeform";
  else throw invalid("tool definition has an invalid kind");
  const input = definition.inputSchemaJson;
  const output = definition.outputSchemaJson;
  return {
    name: definition.name,
    toolName,
    description: definition.description,
    kind,
    ...(input !== undefined && { inputSchema: parseJsonBytes(input, "invalid tool input schema") }),
    ...(output !== undefined && { outputSchema: parseJsonBytes(output, "invalid tool output schema") }),
  };
}

/** The checks of an Execute that come before its execution id is taken. */
export function executeRequestFromProto(request: ProtoExecuteRequest): ExecuteRequest {
  requireId("execution", request.executionId);
  requireId("tool call", request.toolCallId);
  const enabledTools = request.enabledTools.map(toolDefinitionFromProto);
  return {
    toolCallId: request.toolCallId,
    source: request.source,
    enabledTools,
    ...(request.yieldTimeMs !== undefined && { yieldTimeMs: fromUint64(request.yieldTimeMs) }),
    ...(request.maxOutputTokens !== undefined && { maxOutputTokens: fromUint64(request.maxOutputTokens) }),
  };
}

export function yieldTimeFromProto(value: bigint): number {
  return fromUint64(value);
}

const DETAILS: Record<ImageDetail, ProtoImageDetail> = {
  auto: ProtoImageDetail.AUTO,
  low: ProtoImageDetail.LOW,
  high: ProtoImageDetail.HIGH,
  original: ProtoImageDetail.ORIGINAL,
};

function contentItemToProto(item: ContentItem): ProtoContentItem {
  if (item.type === "input_text") return create(ContentItemSchema, { item: { case: "text", value: { text: item.text } } });
  if (item.type === "input_audio") return create(ContentItemSchema, { item: { case: "audio", value: { audioUrl: item.audio_url } } });
  return create(ContentItemSchema, {
    item: { case: "image", value: { imageUrl: item.image_url, ...(item.detail !== undefined && { detail: DETAILS[item.detail] }) } },
  });
}

/** Nanoseconds from the request's receipt; never 0, as the clock may not have moved without I/O. */
function elapsedNs(receivedAtMs: number): bigint {
  return BigInt(Math.max(1, Math.round((performance.now() - receivedAtMs) * 1e6)));
}

export function outcomeToProto(response: RuntimeResponse, receivedAtMs: number): ExecutionOutcome {
  let outcome: MessageInitShape<typeof ExecutionOutcomeSchema>["outcome"];
  if (response.kind === "yielded") outcome = { case: "yielded", value: {} };
  else if (response.kind === "terminated") outcome = { case: "terminated", value: {} };
  else outcome = { case: "completed", value: response.errorText === undefined ? {} : { errorText: response.errorText } };
  return create(ExecutionOutcomeSchema, {
    cellId: response.cellId,
    contentItems: response.items.map(contentItemToProto),
    outcome,
    codeModeHostDurationNs: elapsedNs(receivedAtMs),
  });
}

export function waitResponseToProto(result: WaitOutcome, receivedAtMs: number): WaitResponse {
  const value = outcomeToProto(result.response, receivedAtMs);
  return create(WaitResponseSchema, { state: result.kind === "live" ? { case: "liveCell", value } : { case: "missingCell", value } });
}
