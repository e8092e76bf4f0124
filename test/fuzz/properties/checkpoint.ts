// Properties of the checkpoint and its decoding on recovery (src/cursor/agent/checkpoint.ts
// builds it, src/cursor/agent/recovery.ts and root-messages.ts read it back): any history
// comes back exactly from the client's copy; any garbage the client holds instead
// is an AppError or messages of a valid shape, never another throw, never a hang.
import fc from "fast-check";
import { expect } from "vitest";
import { buildCheckpoint } from "../../../src/cursor/agent/checkpoint.ts";
import { recoverHistory } from "../../../src/cursor/agent/recovery.ts";
import { RequestChannel } from "../../../src/cursor/agent/request-channel.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { AppError } from "../../../src/core/errors.ts";
import { ConversationStateStructureSchema, type AgentServerMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { create } from "@bufbuild/protobuf";
import type { ChatMessage } from "../../../src/provider/types.ts";
import type { FuzzProperty } from "../support/fuzz-property.ts";

const text = fc.string({ unit: "binary", maxLength: 30 });
const id = fc.string({ minLength: 1, maxLength: 12 });
const image = fc.record({ mimeType: fc.constantFrom("image/png", "image/jpeg"), data: fc.base64String({ minLength: 4, maxLength: 24 }) });
const images = fc.array(image, { minLength: 1, maxLength: 2 });
const toolCall = fc.record(
  { id, name: id, arguments: fc.oneof(text, fc.json({ maxDepth: 2 })), custom: fc.constant(true as const) },
  { requiredKeys: ["id", "name", "arguments"] },
);

const chatMessage: fc.Arbitrary<ChatMessage> = fc.oneof(
  fc.record({ role: fc.constant("system" as const), content: text }),
  fc.record({ role: fc.constant("user" as const), content: text, images }, { requiredKeys: ["role", "content"] }),
  fc.record(
    {
      role: fc.constant("assistant" as const),
      content: text,
      reasoning: text,
      toolCalls: fc.array(toolCall, { maxLength: 3 }),
      replay: fc.record({
        provider: fc.constantFrom("anthropic" as const, "openai-responses" as const),
        // As stored: JSON text holds no -0, which fc.jsonValue can make and JSON turns into 0.
        data: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown),
      }),
    },
    { requiredKeys: ["role", "content"] },
  ),
  fc.record(
    { role: fc.constant("tool" as const), toolCallId: id, name: id, content: text, isError: fc.boolean(), images },
    { requiredKeys: ["role", "toolCallId", "name", "content"] },
  ),
);

const history = fc.array(
  fc.record({
    message: chatMessage,
    messageKey: fc.option(
      fc.oneof(
        id,
        id.map((k) => `cursor:user:${k}`),
      ),
      { nil: null },
    ),
    toolCard: fc.constant(null),
    requestId: fc.option(id, { nil: null }),
  }),
  { maxLength: 8 },
);

/** A real channel whose every message to the client is recorded. */
function channel(): { channel: RequestChannel; sent: AgentServerMessage[] } {
  const sent: AgentServerMessage[] = [];
  return { channel: new RequestChannel((m) => sent.push(m), new AbortController().signal), sent };
}

const ROLES = ["system", "user", "assistant", "tool"];

/** JSON shaped more or less like a root message, every field possibly wrong. */
const rootish = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: "small" }, fc.jsonValue({ maxDepth: 2 }), tie("part"), tie("root")),
  part: fc.record(
    {
      type: fc.oneof(fc.constantFrom("text", "image", "reasoning", "tool-call", "tool-result"), text),
      text: tie("any"),
      image: fc.oneof(fc.base64String({ maxLength: 16 }), fc.constant("data:image/png;base64,iVBORw0KGgo="), tie("any")),
      toolCallId: tie("any"),
      toolName: tie("any"),
      args: tie("any"),
      result: tie("any"),
      isError: tie("any"),
    },
    { requiredKeys: ["type"] },
  ),
  root: fc.record(
    {
      role: fc.oneof(fc.constantFrom(...ROLES), tie("any")),
      content: fc.oneof(text, fc.array(tie("part"), { maxLength: 3 }), tie("any")),
      providerOptions: fc.oneof(
        fc.record({ byokEdge: fc.record({ message: fc.oneof(chatMessage, tie("any")), key: tie("any") }, { requiredKeys: [] }) }),
        tie("any"),
      ),
    },
    { requiredKeys: [] },
  ),
}));

const encoder = new TextEncoder();

export const checkpointProperties: FuzzProperty[] = [
  {
    name: "any history built into a checkpoint is recovered exactly from the client's blobs, asking the client nothing",
    runs: 200,
    property: fc.asyncProperty(history, async (entries) => {
      const built = await buildCheckpoint({ history: entries, usedTokens: 1, maxTokens: 2, mode: 1, todos: [] });
      const prefetched = new Map([...built.blobs].map(([hex, blob]) => [hex, blob.data]));
      const { channel: ch, sent } = channel();
      const recovered = await recoverHistory(ch, built.state, prefetched, 1_000);
      expect(sent).toEqual([]);
      expect(recovered).toEqual(
        entries.map((e) => (e.messageKey ? { message: e.message, messageKey: e.messageKey } : { message: e.message })),
      );
    }),
  },
  {
    name: "garbage root blobs (bytes, JSON, near-root-messages, missing blobs) recover to valid messages or fail with an AppError",
    runs: 300,
    property: fc.asyncProperty(
      fc.array(
        fc.oneof(
          { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }) },
          { weight: 4, arbitrary: rootish.any.map((v) => encoder.encode(JSON.stringify(v) ?? "null")) },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
        { minLength: 1, maxLength: 4 },
      ),
      async (blobs) => {
        const ids = blobs.map((_, i) => new Uint8Array([i, 0xfe]));
        const prefetched = new Map(blobs.flatMap((b, i) => (b ? [[toHex(ids[i]!), b] as const] : [])));
        const state = create(ConversationStateStructureSchema, { rootPromptMessagesJson: ids });
        const { channel: ch } = channel();
        let recovered: Awaited<ReturnType<typeof recoverHistory>>;
        try {
          recovered = await recoverHistory(ch, state, prefetched, 10);
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          return;
        }
        for (const { message, messageKey } of recovered) {
          expect(ROLES).toContain(message.role);
          expect(typeof message.content).toBe("string");
          if (messageKey !== undefined) expect(typeof messageKey).toBe("string");
        }
      },
    ),
  },
];
