// Replies a scripted Cursor client sends to exec requests.
import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  AgentClientMessage,
  ExecServerMessage,
  McpToolResultContentItemSchema,
  RequestContextSchema,
} from "../../src/proto/gen/agent/v1/agent_pb.ts";
import { clientMessage, type ClientInit } from "./cursor-client.ts";

type ExecResultInit = Extract<NonNullable<ClientInit["message"]>, { case: "execClientMessage" }>["value"]["message"];

function execResult(exec: ExecServerMessage, message: ExecResultInit): AgentClientMessage {
  return clientMessage({ message: { case: "execClientMessage", value: { id: exec.id, message } } });
}

export function readSuccess(exec: ExecServerMessage, content: string): AgentClientMessage {
  const path = exec.message.case === "readArgs" ? exec.message.value.path : "";
  return execResult(exec, {
    case: "readResult",
    value: {
      result: {
        case: "success",
        value: {
          path,
          output: { case: "content", value: content },
          totalLines: content.split("\n").length,
          fileSize: BigInt(content.length),
        },
      },
    },
  });
}

/** A Read of a binary file: the client sends its bytes as `data`. */
export function readData(exec: ExecServerMessage, data: Uint8Array): AgentClientMessage {
  const path = exec.message.case === "readArgs" ? exec.message.value.path : "";
  return execResult(exec, {
    case: "readResult",
    value: { result: { case: "success", value: { path, output: { case: "data", value: data }, fileSize: BigInt(data.length) } } },
  });
}

/** A Read whose output the client left in a blob of its own (output_blob_id). */
export function readInBlob(exec: ExecServerMessage, outputBlobId: Uint8Array, fileSize: number): AgentClientMessage {
  const path = exec.message.case === "readArgs" ? exec.message.value.path : "";
  return execResult(exec, {
    case: "readResult",
    value: { result: { case: "success", value: { path, outputBlobId, fileSize: BigInt(fileSize) } } },
  });
}

export function mcpSuccess(
  exec: ExecServerMessage,
  content: MessageInitShape<typeof McpToolResultContentItemSchema>[],
): AgentClientMessage {
  return execResult(exec, { case: "mcpResult", value: { result: { case: "success", value: { content } } } });
}

export function readNotFound(exec: ExecServerMessage): AgentClientMessage {
  const path = exec.message.case === "readArgs" ? exec.message.value.path : "";
  return execResult(exec, { case: "readResult", value: { result: { case: "fileNotFound", value: { path } } } });
}

export function writeSuccess(exec: ExecServerMessage): AgentClientMessage {
  const args = exec.message.case === "writeArgs" ? exec.message.value : undefined;
  return execResult(exec, {
    case: "writeResult",
    value: { result: { case: "success", value: { path: args?.path ?? "", linesCreated: (args?.fileText ?? "").split("\n").length } } },
  });
}

export function shellEvent(
  exec: ExecServerMessage,
  event: Extract<ExecResultInit, { case: "shellStream" }>["value"]["event"],
): AgentClientMessage {
  return execResult(exec, { case: "shellStream", value: { event } });
}

export function streamClose(exec: ExecServerMessage): AgentClientMessage {
  return clientMessage({
    message: { case: "execClientControlMessage", value: { message: { case: "streamClose", value: { id: exec.id } } } },
  });
}

export function subagentSuccess(exec: ExecServerMessage, agentId: string, finalMessage: string): AgentClientMessage {
  return execResult(exec, {
    case: "subagentResult",
    value: { result: { case: "success", value: { agentId, finalMessage } } },
  });
}

export function requestContextSuccess(
  exec: ExecServerMessage,
  requestContext: MessageInitShape<typeof RequestContextSchema>,
): AgentClientMessage {
  return execResult(exec, { case: "requestContextResult", value: { result: { case: "success", value: { requestContext } } } });
}
