// Blobs the server asks of the client with get_blob (an attached image, a Read's
// output, the client's conversation state): each wait bounded by
// BYOK_CONTEXT_TIMEOUT_MS (2 s in tests), each failure naming what was asked for.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ConversationStateStructureSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { runRequest, startTurn } from "../../support/cursor-client.ts";
import { readInBlob } from "../../support/exec-replies.ts";
import { textResponse, toolResultText } from "../../support/provider-bodies.ts";

const blobId = (n: number) => new Uint8Array(32).fill(n);

describe("client blobs", () => {
  it("fails the run with deadline_exceeded naming the image when the client never sends an attached image's blob", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["never"])]);
    const { reader } = await startTurn(
      {
        conversationId: crypto.randomUUID(),
        text: `look ${scenario.marker}`,
        images: [{ uuid: "a", mimeType: "image/png", dataOrBlobId: { case: "blobId", value: blobId(1) } }],
      },
      { missingBlob: "ignore" },
    );
    expect((await reader.end()).error).toMatchObject({
      code: "deadline_exceeded",
      message: "the client did not send image 1 of the message within 2 s",
    });
    expect(await scenario.requests(0)).toHaveLength(0);
  });

  it("tells the model which file's content the client no longer holds when a Read's output blob is missing", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "call-gone", name: "Read", args: ['{"path":"/gone.txt"}'] }]),
      textResponse("openai-chat", ["it is gone"]),
    ]);
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `read ${scenario.marker}` },
      { onExec: (exec, r) => r.send(readInBlob(exec, blobId(2), 10)) },
    );
    expect(await reader.end()).toEqual({});
    const [, second] = await scenario.requests(2);
    expect(toolResultText("openai-chat", second!.body, "call-gone")).toBe(
      "Could not get the content of /gone.txt from Cursor: the client does not have the content of /gone.txt (blob 020202020202…)",
    );
  });

  it("fails a recovery with failed_precondition naming the conversation state message the client does not hold", async () => {
    const scenario = await createScenario([textResponse("openai-chat", ["never"])]);
    const message = runRequest({ conversationId: crypto.randomUUID(), text: `recover ${scenario.marker}` });
    if (message.message.case !== "runRequest") throw new Error("unreachable");
    message.message.value.conversationState = create(ConversationStateStructureSchema, { rootPromptMessagesJson: [blobId(3)] });
    const { reader } = await startTurn({ conversationId: "", text: "", message });
    expect((await reader.end()).error).toMatchObject({
      code: "failed_precondition",
      message: "the client does not have message 1 of 1 of the conversation state (blob 030303030303…)",
    });
  });
});
