// The cards of exec and wait themselves. Cursor has no code-mode card, so they show
// as calls of a tool of the "code-mode" server, with the program or the wait's
// arguments, and the formatted result; the cells' own tool calls have their usual cards.
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import type { ToolCall } from "../../proto/gen/agent/v1/agent_pb.ts";
import { toolCard } from "../tools/tool-card.ts";

const SERVER = "code-mode";

export function emptyCodeModeCard(): ToolCall {
  return toolCard({ case: "mcpToolCall", value: {} });
}

export function codeModeCard(
  toolName: "exec" | "wait",
  args: Record<string, JsonValue>,
  toolCallId: string,
  result?: { text: string; isError: boolean },
): ToolCall {
  const values: Record<string, Value> = {};
  for (const [key, value] of Object.entries(args)) values[key] = fromJson(ValueSchema, value);
  return toolCard({
    case: "mcpToolCall",
    value: {
      args: { name: toolName, args: values, toolCallId, providerIdentifier: SERVER, toolName, serverIdentifier: SERVER },
      ...(result && {
        result: {
          result: {
            case: "success",
            value: { content: [{ content: { case: "text", value: { text: result.text } } }], isError: result.isError },
          },
        },
      }),
    },
  });
}
