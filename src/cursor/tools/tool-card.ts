// Building UI cards and tool results. The round adds the card's tool_call_id and
// timestamps; tools fill in the typed args and result.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { ToolCallSchema, type ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import type { ToolResult } from "./tool-types.ts";

export type ToolCardInit = MessageInitShape<typeof ToolCallSchema>["tool"];

export function toolCard(tool: ToolCardInit): ToolCall {
  return create(ToolCallSchema, { tool });
}

export function success(content: string, card: ToolCall): ToolResult {
  return { content, isError: false, card };
}

export function failure(content: string, card: ToolCall): ToolResult {
  return { content, isError: true, card };
}

/** int64 sizes from the client as a uint32 card field (saturating). */
export function toUint32(value: bigint | number): number {
  const n = typeof value === "bigint" ? Number(value) : value;
  if (!Number.isFinite(n) || n < 0) return 0;
  return Math.min(n, 0xffff_ffff);
}
