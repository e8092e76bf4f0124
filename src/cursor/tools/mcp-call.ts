// CallMcpTool: mcp_args (11) → mcp_result. The model names the server and the
// tool; the server identifier doubles as provider identifier (docs/protocol.md#exec).
// The relay is shared with the request context's own MCP tools (mcp-dynamic.ts).
import { create, fromJson, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { IMAGE_MAX_BYTES, imagePartOf } from "../../provider/images.ts";
import type { ImagePart } from "../../provider/types.ts";
import {
  McpArgsSchema,
  type McpArgs,
  type McpSuccess,
  type McpToolResultSchema,
  type ToolCall,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { optional, parseArgs } from "./args.ts";
import { failure, success, toolCard } from "./tool-card.ts";
import { definitionOf } from "./definitions.ts";
import { nextReply } from "./exec-reply.ts";
import { truncateMiddle } from "./truncate.ts";
import type { Tool, ToolContext, ToolResult } from "./tool-types.ts";

/** Some models send the arguments object as a JSON string; accept both. */
const jsonObjectText = (value: unknown): unknown => {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value; // left as is, so validation reports it
  }
};

const CallMcpToolArgsInput = z.object({
  server: z.string().min(1, "must not be empty"),
  toolName: z.string().min(1, "must not be empty"),
  arguments: optional(z.preprocess(jsonObjectText, z.record(z.string(), z.json()))),
});
/** One MCP call: the server, its tool and the arguments, whichever tool the model called. */
export type McpCall = z.output<typeof CallMcpToolArgsInput>;

export const callMcpToolTool: Tool<McpCall> = {
  name: "CallMcpTool",
  definition: definitionOf("CallMcpTool"),
  emptyCard: emptyMcpCard,
  parse: (json) => parseArgs("CallMcpTool", CallMcpToolArgsInput, json),
  startedCard: mcpStartedCard,
  run: relayMcpCall,
};

export function emptyMcpCard(): ToolCall {
  return toolCard({ case: "mcpToolCall", value: {} });
}

export function mcpStartedCard(args: McpCall, toolCallId: string): ToolCall {
  return card(mcpArgs(args, toolCallId));
}

function mcpArgs(args: McpCall, toolCallId: string): McpArgs {
  const values: Record<string, Value> = {};
  for (const [key, value] of Object.entries(args.arguments ?? {})) values[key] = fromJson(ValueSchema, value);
  return create(McpArgsSchema, {
    name: args.toolName,
    args: values,
    toolCallId,
    providerIdentifier: args.server,
    toolName: args.toolName,
    serverIdentifier: args.server,
  });
}

function card(args: McpArgs, result?: MessageInitShape<typeof McpToolResultSchema>): ToolCall {
  return toolCard({ case: "mcpToolCall", value: { args, result } });
}

/** Relays the call to the client as mcp_args and makes its mcp_result the tool result (text and images). */
export async function relayMcpCall(args: McpCall, ctx: ToolContext): Promise<ToolResult> {
  const sent = mcpArgs(args, ctx.toolCallId);
  const call = ctx.client.exec({ case: "mcpArgs", value: sent }, { toolCallId: ctx.toolCallId });
  const fail = (message: string) => failure(message, card(sent, { result: { case: "error", value: { error: message } } }));
  for (;;) {
    const reply = await nextReply(call, "mcpResult");
    if (!reply.ok) return fail(reply.error);
    const result = reply.value.result;
    switch (result.case) {
      case "approved":
        continue; // the user allowed the call; its result follows
      case "success": {
        const { text, images } = mcpContent(result.value);
        const done = card(sent, { result: { case: "success", value: result.value } });
        const outcome = result.value.isError
          ? failure(text || "The MCP tool reported an error.", done)
          : success(text || "(The MCP tool returned no content.)", done);
        return images.length > 0 ? { ...outcome, images } : outcome;
      }
      case "error":
        return fail(`The MCP tool failed: ${result.value.error || "unknown error"}`);
      case "rejected": {
        const text = `The user rejected the MCP tool call${result.value.reason ? `: ${result.value.reason}` : "."}`;
        return failure(text, card(sent, { result: { case: "rejected", value: result.value } }));
      }
      case "permissionDenied": {
        const text = `Permission denied calling the MCP tool${result.value.error ? `: ${result.value.error}` : "."}`;
        return failure(text, card(sent, { result: { case: "permissionDenied", value: result.value } }));
      }
      case "toolNotFound": {
        const available = result.value.availableTools.length > 0 ? ` Available tools: ${result.value.availableTools.join(", ")}.` : "";
        return fail(`Server ${args.server} has no tool named ${args.toolName}.${available}`);
      }
      case "serverNotFound": {
        const available =
          result.value.availableServers.length > 0 ? ` Available servers: ${result.value.availableServers.join(", ")}.` : "";
        return fail(`No MCP server named ${args.server}.${available}`);
      }
      case undefined:
        return fail("Cursor returned an empty MCP result.");
    }
  }
}

/** The text and the images of a result; images no provider takes are described in the text instead. */
function mcpContent(result: McpSuccess): { text: string; images: ImagePart[] } {
  const images: ImagePart[] = [];
  const parts = result.content.map((item): string => {
    switch (item.content.case) {
      case "text":
        return item.content.value.text;
      case "image": {
        const { data, mimeType } = item.content.value;
        const image = data.length <= IMAGE_MAX_BYTES ? imagePartOf(data, mimeType) : undefined;
        if (image) images.push(image);
        return image ? "" : `[image: ${mimeType || "unknown type"}, ${data.length} bytes]`;
      }
      default:
        return "";
    }
  });
  const text = parts.filter((p) => p !== "").join("\n");
  if (text === "" && result.structuredContent !== undefined)
    return { text: truncateMiddle(JSON.stringify(result.structuredContent)), images };
  if (text === "" && images.length > 0) {
    return { text: `(The MCP tool returned ${images.length === 1 ? "an image" : `${images.length} images`}.)`, images };
  }
  return { text: truncateMiddle(text), images };
}
