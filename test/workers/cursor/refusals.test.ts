// A model's refusal ends the turn safely (docs/protocol.md#refusals): no tool call of a refused
// answer runs, its text is kept, and the end-stream says at once that a retry will not help.
import { fromBinary } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { ErrorDetailsSchema } from "../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import { messageDelta, messageStart, messageStop, sse, textBlock } from "../../fixtures/anthropic/stream.ts";
import { chatChunk, createScenario, type ScriptedResponse } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";

/** Text, then a complete tool_use, then the stop reasons given (the last one wins unless it is a refusal). */
function anthropicToolThenStops(stopReasons: string[]): ScriptedResponse {
  return {
    steps: [
      messageStart(),
      ...textBlock(0, ["I will not ", "do that."]),
      sse({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "Shell", input: {} } }),
      sse({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"command":"rm -rf /"}' } }),
      sse({ type: "content_block_stop", index: 1 }),
      ...stopReasons.map((reason) => messageDelta(reason)),
      messageStop(),
    ],
  };
}

async function refusedTurn(model: string, response: ScriptedResponse) {
  const scenario = await createScenario([response]);
  const execs: string[] = [];
  const { reader } = await startTurn(
    { conversationId: crypto.randomUUID(), text: `please ${scenario.marker}`, model },
    // An exec would be recorded and never answered: the turn would then hang, not end refused.
    { onExec: (exec) => void execs.push(exec.message.case ?? "") },
  );
  const end = await reader.end();
  return { end, execs, text: reader.text(), completed: reader.completedCalls(), requests: await scenario.requests(1) };
}

function detailsOf(end: { error?: { details?: { type: string; value: string }[] } }) {
  const value = end.error?.details?.find((d) => d.type === "aiserver.v1.ErrorDetails")?.value;
  if (value === undefined) throw new Error("the end-stream carried no ErrorDetails");
  return fromBinary(ErrorDetailsSchema, base64Decode(value)).details;
}

describe("model refusals", () => {
  it("runs no tool call of an Anthropic answer that refuses after a tool_use, keeps its text, and ends at once as not retryable", async () => {
    const { end, execs, text, completed, requests } = await refusedTurn("fake-anthropic", anthropicToolThenStops(["refusal"]));
    expect(execs).toEqual([]);
    // The card the client drew while the call streamed is closed, not left spinning.
    expect(completed).toEqual(["toolu_1"]);
    expect(text).toBe("I will not do that.");
    expect(end.error?.code).toBe("unavailable");
    expect(detailsOf(end)).toMatchObject({ isRetryable: false, shouldShowImmediateError: true, title: "The model refused" });
    expect(requests).toHaveLength(1);
  });

  it("keeps a refusal when a later stop reason of the same answer says tool_use", async () => {
    const { end, execs } = await refusedTurn("fake-anthropic", anthropicToolThenStops(["refusal", "tool_use"]));
    expect(execs).toEqual([]);
    expect(detailsOf(end)).toMatchObject({ isRetryable: false });
  });

  it("treats OpenAI's refusal text as a refusal: shown, kept, and no tool call runs", async () => {
    const id = "chatcmpl-refusal";
    const response: ScriptedResponse = {
      steps: [
        chatChunk(id, { role: "assistant", content: null }),
        chatChunk(id, { refusal: "I can't help with that." }),
        chatChunk(id, {
          tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "Shell", arguments: '{"command":"ls"}' } }],
        }),
        chatChunk(id, {}, "tool_calls"),
        { data: "[DONE]" },
      ],
    };
    const { end, execs, text } = await refusedTurn("fake-model", response);
    expect(execs).toEqual([]);
    expect(text).toBe("I can't help with that.");
    expect(detailsOf(end)).toMatchObject({ isRetryable: false, shouldShowImmediateError: true });
  });
});
