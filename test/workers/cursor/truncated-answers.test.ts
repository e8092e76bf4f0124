// An answer cut by the model's output limit never runs a half tool call
// (docs/protocol.md#truncated-answers): the model is told as a tool error and may try again, and
// an answer cut before it said anything ends the turn with a clear error.
import { describe, expect, it } from "vitest";
import { messageDelta, messageStart, messageStop, sse, textBlock } from "../../fixtures/anthropic/stream.ts";
import { chatText, chatToolCalls, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { responsesStream } from "../../fixtures/openai-responses/stream.ts";
import { toolResultText } from "../../support/provider-bodies.ts";

interface ChatBody {
  messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: { function: { arguments: string } }[] }[];
}

describe("answers cut at the output limit", () => {
  it("runs no tool call cut inside its arguments, tells the model so, and the turn goes on", async () => {
    const scenario = await createScenario([
      chatToolCalls([{ id: "call_cut", name: "Shell", args: ['{"command":"echo ', "a very long"] }], { finishReason: "length" }),
      chatText(["I will write it in parts."]),
    ]);
    const execs: string[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `write ${scenario.marker}` },
      // An exec would be recorded and never answered: the turn would hang instead of going on.
      { onExec: (exec) => void execs.push(exec.message.case ?? "") },
    );
    expect(await reader.end()).toEqual({});
    expect(execs).toEqual([]);
    // The card the client drew while the call streamed is closed, not left spinning.
    expect(reader.completedCalls()).toEqual(["call_cut"]);
    expect(reader.text()).toBe("I will write it in parts.");
    const [, second] = await scenario.requests(2);
    const messages = (JSON.parse(second!.body) as ChatBody).messages;
    const result = messages.find((m) => m.role === "tool" && m.tool_call_id === "call_cut");
    expect(result?.content).toContain("cut off at your output limit");
    // The half arguments are not sent back as if they were JSON.
    const call = messages.find((m) => m.role === "assistant" && m.tool_calls?.length);
    expect(call?.tool_calls?.[0]?.function.arguments).toBe("{}");
  });

  it("runs no Anthropic tool_use cut by max_tokens, and the turn goes on", async () => {
    const cut = {
      steps: [
        messageStart(),
        sse({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_cut", name: "Shell", input: {} } }),
        sse({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"command":"echo ' } }),
        messageDelta("max_tokens"),
        messageStop(),
      ],
    };
    const scenario = await createScenario([
      cut,
      { steps: [messageStart(), ...textBlock(0, ["Smaller, then."]), messageDelta("end_turn"), messageStop()] },
    ]);
    const execs: string[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `anthropic ${scenario.marker}`, model: "fake-anthropic" },
      { onExec: (exec) => void execs.push(exec.message.case ?? "") },
    );
    expect(await reader.end()).toEqual({});
    expect(execs).toEqual([]);
    expect(reader.text()).toBe("Smaller, then.");
    const [, second] = await scenario.requests(2);
    const blocks = (JSON.parse(second!.body) as { messages: { content: unknown }[] }).messages.flatMap((m) =>
      Array.isArray(m.content) ? (m.content as { type: string; tool_use_id?: string; is_error?: boolean; input?: unknown }[]) : [],
    );
    expect(blocks.find((b) => b.type === "tool_use")?.input).toEqual({});
    expect(blocks.find((b) => b.type === "tool_result" && b.tool_use_id === "toolu_cut")?.is_error).toBe(true);
  });

  it("runs no Responses function call of an answer incomplete for max_output_tokens, and the turn goes on", async () => {
    const call = { callId: "call_resp_cut", name: "Shell", args: ['{"command":"echo '] };
    const scenario = await createScenario([
      responsesStream().created().functionCallAdded(call).functionCallDelta(call, call.args[0]!).incomplete("max_output_tokens").response(),
      responsesStream().created().message(["In parts, then."]).completed().response(),
    ]);
    const execs: string[] = [];
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `responses ${scenario.marker}`, model: "fake-responses" },
      { onExec: (exec) => void execs.push(exec.message.case ?? "") },
    );
    expect(await reader.end()).toEqual({});
    expect(execs).toEqual([]);
    expect(reader.text()).toBe("In parts, then.");
    const [, second] = await scenario.requests(2);
    expect(toolResultText("openai-responses", second!.body, "call_resp_cut")).toContain("cut off at your output limit");
  });

  it("ends a turn whose answer was cut before it wrote anything with resource_exhausted, not an empty success", async () => {
    const scenario = await createScenario([chatText([], { finishReason: "length" })]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `nothing ${scenario.marker}` });
    const end = await reader.end();
    expect(end.error?.code).toBe("resource_exhausted");
    expect(end.error?.message).toContain("reached its output limit before it wrote anything");
  });
});
