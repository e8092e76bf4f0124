// Recovering a conversation from a client whose root blobs are not root messages
// (found by test/fuzz/cursor/checkpoint.test.ts): each is a clear invalid_argument error,
// not an internal TypeError, and nothing of the wrong shape is taken as history.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { recoverHistory } from "../../../src/cursor/agent/recovery.ts";
import { RequestChannel } from "../../../src/cursor/agent/request-channel.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { AppError, Code } from "../../../src/core/errors.ts";
import { ConversationStateStructureSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";

/** recoverHistory over one prefetched root blob holding `json`. */
function recoverOne(json: string) {
  const id = new Uint8Array([1, 2, 3]);
  const state = create(ConversationStateStructureSchema, { rootPromptMessagesJson: [id] });
  const channel = new RequestChannel(() => {}, new AbortController().signal);
  return recoverHistory(channel, state, new Map([[toHex(id), new TextEncoder().encode(json)]]), 100);
}

describe("recovery from root blobs that are not root messages", () => {
  for (const [what, json] of [
    ["an empty object", "{}"],
    ["null", "null"],
    ["a root with null content", '{"role":"user","content":null}'],
    ["a root of an unknown role", '{"role":"robot","content":"hi"}'],
    ["a text part without text", '{"role":"user","content":[{"type":"text"}]}'],
    [
      "a tool result that is not text",
      '{"role":"tool","content":[{"type":"tool-result","toolCallId":"c","toolName":"t","result":{"a":1}}]}',
    ],
    ["our own copy without content", '{"role":"user","content":"hi","providerOptions":{"byokEdge":{"message":{"role":"user"}}}}'],
    [
      "our own copy with a key that is not text",
      '{"role":"user","content":"hi","providerOptions":{"byokEdge":{"message":{"role":"user","content":"hi"},"key":7}}}',
    ],
  ]) {
    it(`refuses ${what} with invalid_argument naming the message`, async () => {
      const error = await recoverOne(json!).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe(Code.InvalidArgument);
      expect((error as AppError).message).toContain("message 1 of 1 of the conversation state");
    });
  }

  it("still reads other backends' roots, skipping parts of types it does not know", async () => {
    const recovered = await recoverOne('{"role":"assistant","content":[{"type":"file","data":1},{"type":"text","text":"hello"}]}');
    expect(recovered).toEqual([{ message: { role: "assistant", content: "hello" } }]);
  });
});
