// Code mode in Cursor runs, for tests: a hosted user whose models have code_mode on
// (through the admin API, as a user would), scripted exec and wait calls for the fake
// provider, client replies for Grep, and readings of the code-mode tool outputs.
import type { ExecServerMessage } from "../../src/proto/gen/agent/v1/agent_pb.ts";
import { anthropicStream } from "../fixtures/anthropic/stream.ts";
import { responsesStream } from "../fixtures/openai-responses/stream.ts";
import { member, createTeam } from "./admin-client.ts";
import { clientMessage } from "./cursor-client.ts";
import { chatToolCalls, type ScriptedResponse } from "./fake-provider.ts";
import { toolResultText } from "./provider-bodies.ts";
import { storeCredential, storeModel } from "./stored-models.ts";

export type CodeModeWire = "openai-chat" | "openai-responses" | "anthropic";

export interface CodeModeUser {
  /** The principal id (conversation objects are named by it). */
  userId: string;
  token: string;
  /** Auth headers for startTurn's client behaviour. */
  headers: Record<string, string>;
  /** The user's code-mode model on each wire, and a plain model on Chat Completions. */
  models: Record<CodeModeWire, string> & { plain: string };
}

/** A team member with a code-mode model on each wire and a plain one, all on the fake provider. */
export async function codeModeUser(): Promise<CodeModeUser> {
  const user = await member((await createTeam()).id, "member");
  const key = `sk-code-mode-${crypto.randomUUID()}`;
  const chat = await storeCredential(user.token, "user", key);
  const responses = await storeCredential(user.token, "user", key, { provider: "openai-responses" });
  const anthropic = await storeCredential(user.token, "user", key, { provider: "anthropic" });
  const model = async (credentialId: string, codeMode: boolean) =>
    (await storeModel(user.token, { credential_id: credentialId, scope: "user", code_mode: codeMode })).name;
  return {
    userId: user.user.id,
    token: user.token,
    headers: { authorization: `Bearer ${user.token}` },
    models: {
      "openai-chat": await model(chat.id, true),
      "openai-responses": await model(responses.id, true),
      anthropic: await model(anthropic.id, true),
      plain: await model(chat.id, false),
    },
  };
}

/** A model response calling exec: a custom tool call on Responses, the function variant elsewhere. */
export function execCall(wire: CodeModeWire, callId: string, source: string): ScriptedResponse {
  if (wire === "openai-chat") return chatToolCalls([{ id: callId, name: "exec", args: [JSON.stringify({ source })] }]);
  if (wire === "anthropic") return anthropicStream({ toolUses: [{ id: callId, name: "exec", input: [JSON.stringify({ source })] }] });
  const stream = responsesStream();
  const id = `ctc_${callId}`;
  const outputIndex = stream.output.length;
  const added = { id, type: "custom_tool_call", status: "in_progress", call_id: callId, name: "exec", input: "" };
  stream.output.push(added);
  stream.event("response.output_item.added", { output_index: outputIndex, item: added });
  // The input streams in two parts, as a model writes it.
  const half = Math.floor(source.length / 2);
  for (const delta of [source.slice(0, half), source.slice(half)]) {
    stream.event("response.custom_tool_call_input.delta", { item_id: id, output_index: outputIndex, delta });
  }
  stream.event("response.custom_tool_call_input.done", { item_id: id, output_index: outputIndex, input: source });
  const done = { ...added, status: "completed", input: source };
  stream.output[outputIndex] = done;
  stream.event("response.output_item.done", { output_index: outputIndex, item: done });
  return stream.completed().response();
}

/** A model response calling wait. */
export function waitCall(wire: CodeModeWire, callId: string, args: Record<string, unknown>): ScriptedResponse {
  const json = JSON.stringify(args);
  if (wire === "openai-chat") return chatToolCalls([{ id: callId, name: "wait", args: [json] }]);
  if (wire === "anthropic") return anthropicStream({ toolUses: [{ id: callId, name: "wait", input: [json] }] });
  return responsesStream()
    .functionCall({ callId, name: "wait", args: [json] })
    .completed()
    .response();
}

/** The client's grep_result listing `files`. */
export function grepFiles(exec: ExecServerMessage, files: string[]) {
  return clientMessage({
    message: {
      case: "execClientMessage",
      value: {
        id: exec.id,
        message: {
          case: "grepResult",
          value: {
            result: {
              case: "success",
              value: { workspaceResults: { "/w": { result: { case: "files", value: { files, totalFiles: files.length } } } } },
            },
          },
        },
      },
    },
  });
}

type Json = Record<string, unknown>;
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/** What a request gives the model as the output of the call `callId` (exec on Responses is a custom tool). */
export function callOutput(wire: CodeModeWire, body: string, callId: string): string | undefined {
  if (wire === "anthropic") return toolResultText("anthropic", body, callId);
  const request = JSON.parse(body) as Json;
  if (wire === "openai-chat") {
    return list(request.messages).find((m) => m.role === "tool" && m.tool_call_id === callId)?.content as string | undefined;
  }
  const output = list(request.input).find(
    (i) => (i.type === "custom_tool_call_output" || i.type === "function_call_output") && i.call_id === callId,
  );
  return output?.output as string | undefined;
}

/** The wall time made constant, so outputs compare exactly. */
export function withoutWallTime(text: string | undefined): string | undefined {
  return text?.replace(/\nWall time \d+\.\d seconds\n/, "\nWall time N seconds\n");
}
