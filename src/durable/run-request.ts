// Reading a run_request: what it asks the run to do, and the client's own copy
// of the conversation it may carry.
import type { AgentRunRequest } from "../proto/gen/agent/v1/agent_pb.ts";
import { AppError } from "../proto/connect/error.ts";
import { toHex } from "../proto/bytes.ts";
import type { RunAction } from "../agent/run.ts";

/** One message must fit a history row (the object's SQLite caps rows at 2 MB). */
const USER_TEXT_MAX_BYTES = 1_000_000;

/** Bytes the text takes in a stored row: JSON-escaped, UTF-8. */
function storedSize(text: string): number {
  return new TextEncoder().encode(JSON.stringify(text)).byteLength;
}

/** What the run_request asks for: a user message, a resume or a summary; other actions are refused clearly. */
export function runAction(request: AgentRunRequest): { action: RunAction } | { error: AppError } {
  const action = request.action?.action;
  switch (action?.case) {
    case "userMessageAction": {
      const user = action.value.userMessage;
      if (user?.text.trim() === "/summarize") return { action: { kind: "summarize" } };
      if (storedSize(user?.text ?? "") > USER_TEXT_MAX_BYTES) {
        return { error: new AppError("invalid_argument", `the message is larger than ${USER_TEXT_MAX_BYTES / 1_000_000} MB`) };
      }
      return {
        action: {
          kind: "user_message",
          messageId: user?.messageId ?? "",
          text: user?.text ?? "",
          // Cursor moves a long message into a blob and sends its id instead of the text.
          ...(!user?.text && user?.textBlobId?.byteLength ? { textBlobId: user.textBlobId } : {}),
        },
      };
    }
    case "resumeAction":
      return { action: { kind: "resume" } };
    case "summarizeAction":
      return { action: { kind: "summarize" } };
    default:
      return { error: new AppError("unimplemented", `conversation action ${action?.case ?? "(none)"} is not supported yet`) };
  }
}

/** The client's own copy of the conversation, when it sent one with content. */
export function clientState(request: AgentRunRequest) {
  const state = request.conversationState;
  if (!state || state.rootPromptMessagesJson.length === 0) return {};
  const prefetched = new Map(request.preFetchedBlobs.map((b) => [toHex(b.id), b.value] as const));
  return { clientState: { state, prefetched } };
}
