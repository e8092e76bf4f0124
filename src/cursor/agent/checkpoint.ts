// Builds Cursor's checkpoint (ConversationStateStructure) from the stored
// history: root model messages and turn structures as content-addressed blobs
// (SHA-256 of their bytes), referenced by id from the checkpoint.
import { create, fromBinary, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import {
  ConversationStateStructureSchema,
  ConversationStepSchema,
  ConversationSummaryArchiveSchema,
  ConversationSummarySchema,
  ConversationTurnStructureSchema,
  ToolCallSchema,
  UserMessageSchema,
  type ConversationStateStructure,
} from "../../proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../core/bytes.ts";
import type { ChatMessage } from "../../provider/types.ts";
import { rootMessageBytes, toRootMessage } from "./root-messages.ts";

interface HistoryEntry {
  messageKey: string | null;
  message: ChatMessage;
  /** Serialized ToolCall card (tool messages only). */
  toolCard: Uint8Array | null;
  requestId: string | null;
  /** The mode the user message was sent in (older rows have none). */
  mode?: number | null;
}

export interface CheckpointInput {
  history: readonly HistoryEntry[];
  /** The assistant message whose tool calls are still running (staged checkpoints). */
  pending?: Extract<ChatMessage, { role: "assistant" }>;
  usedTokens: number;
  maxTokens: number;
  mode: number;
  todos: { id: string; content: string; status: string }[];
  /** Set once the history was compacted: what the summary replaced. */
  summary?: { text: string; key: string; summarized: HistoryEntry[]; count: number };
}

export interface BuiltCheckpoint {
  state: ConversationStateStructure;
  /** Every blob the checkpoint references, by hex id. */
  blobs: Map<string, { id: Uint8Array; data: Uint8Array }>;
}

export const USER_MESSAGE_KEY_PREFIX = "cursor:user:";

export async function buildCheckpoint(input: CheckpointInput): Promise<BuiltCheckpoint> {
  const blobs = new Map<string, { id: Uint8Array; data: Uint8Array }>();
  const put = async (data: Uint8Array): Promise<Uint8Array> => {
    const id = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
    blobs.set(toHex(id), { id, data });
    return id;
  };
  const encoder = new TextEncoder();

  const roots: Uint8Array[] = [];
  for (const entry of input.history) {
    roots.push(await put(rootMessageBytes(entry.message, entry.messageKey)));
  }

  const turns: Uint8Array[] = [];
  for (const turn of groupTurns(input.history)) {
    const userMessage = await put(
      toBinary(
        UserMessageSchema,
        create(UserMessageSchema, { text: turn.user.content, messageId: turn.messageId, mode: turn.mode ?? input.mode }),
      ),
    );
    const steps: Uint8Array[] = [];
    for (const step of turn.steps) steps.push(await put(step));
    turns.push(
      await put(
        toBinary(
          ConversationTurnStructureSchema,
          create(ConversationTurnStructureSchema, {
            turn: { case: "agentConversationTurn", value: { userMessage, steps, ...(turn.requestId && { requestId: turn.requestId }) } },
          }),
        ),
      ),
    );
  }

  const todos: Uint8Array[] = [];
  for (const todo of input.todos) todos.push(await put(encoder.encode(JSON.stringify(todo))));

  let summaryFields = {};
  if (input.summary) {
    const { text, key, summarized, count } = input.summary;
    const summarizedIds: Uint8Array[] = [];
    for (const entry of summarized) {
      summarizedIds.push(await put(rootMessageBytes(entry.message, entry.messageKey)));
    }
    const position = input.history.findIndex((h) => h.messageKey === key);
    const summaryEntry = input.history[position];
    const summaryMessage = summaryEntry ? await put(rootMessageBytes(summaryEntry.message, summaryEntry.messageKey)) : new Uint8Array();
    const archive = await put(
      toBinary(
        ConversationSummaryArchiveSchema,
        create(ConversationSummaryArchiveSchema, {
          summarizedMessages: summarizedIds,
          summary: text,
          windowTail: position < 0 ? 0 : input.history.length - position - 1,
          summaryMessage,
        }),
      ),
    );
    summaryFields = {
      summary: await put(toBinary(ConversationSummarySchema, create(ConversationSummarySchema, { summary: text }))),
      summaryArchive: archive,
      summaryArchives: [archive],
      selfSummaryCount: count,
    };
  }

  const state = create(ConversationStateStructureSchema, {
    ...summaryFields,
    rootPromptMessagesJson: roots,
    turns,
    todos,
    pendingToolCalls: input.pending
      ? [JSON.stringify(toRootMessage({ ...input.pending, content: "", reasoning: undefined } as ChatMessage))]
      : [],
    tokenDetails: { usedTokens: input.usedTokens, maxTokens: input.maxTokens },
    mode: input.mode,
  });
  return { state, blobs };
}

interface Turn {
  user: Extract<ChatMessage, { role: "user" }>;
  mode: number | null | undefined;
  messageId: string;
  requestId: string | null;
  steps: Uint8Array[];
}

/** Each Cursor user message starts a turn; the model's output and tool calls after it are its steps. */
function groupTurns(history: readonly HistoryEntry[]): Turn[] {
  const turns: Turn[] = [];
  for (const entry of history) {
    const m = entry.message;
    if (m.role === "user" && entry.messageKey?.startsWith(USER_MESSAGE_KEY_PREFIX)) {
      turns.push({
        user: m,
        mode: entry.mode,
        messageId: entry.messageKey.slice(USER_MESSAGE_KEY_PREFIX.length),
        requestId: entry.requestId,
        steps: [],
      });
      continue;
    }
    const turn = turns.at(-1);
    if (!turn) continue;
    if (m.role === "assistant") {
      if (m.reasoning) turn.steps.push(step({ case: "thinkingMessage", value: { text: m.reasoning } }));
      if (m.content) turn.steps.push(step({ case: "assistantMessage", value: { text: m.content } }));
    } else if (m.role === "tool" && entry.toolCard) {
      turn.steps.push(step({ case: "toolCall", value: fromBinary(ToolCallSchema, entry.toolCard) }));
    }
  }
  return turns;
}

function step(message: MessageInitShape<typeof ConversationStepSchema>["message"]): Uint8Array {
  return toBinary(ConversationStepSchema, create(ConversationStepSchema, { message }));
}
