// Compaction: /summarize, summarize_action, automatic compaction before an
// overflowing call, and one compaction after a "prompt too long" refusal.
import { describe, expect, it } from "vitest";
import { fromBinary } from "@bufbuild/protobuf";
import { ConversationSummaryArchiveSchema, ConversationSummarySchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { chatText, createScenario, httpError } from "../../support/fake-provider.ts";
import { clientMessage, startTurn } from "../../support/cursor-client.ts";

type Request = { messages: { role: string; content: string }[]; tools?: unknown[] };
const parse = (body: string) => JSON.parse(body) as Request;

describe("compaction", () => {
  it("summarises on /summarize with a call without tools, replaces the history, and ends with the checkpoint tail", async () => {
    // The summary names the scenario so the fake provider can route the request after it.
    const id = crypto.randomUUID();
    const summary = `Summary: the user said hello (scenario:${id}).`;
    const scenario = await createScenario([chatText(["we talked"]), chatText([summary]), chatText(["fresh start"])], id);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `hello ${scenario.marker}` });
    expect(await one.reader.end()).toEqual({});

    const two = await startTurn({ conversationId, text: "/summarize" });
    expect(await two.reader.end()).toEqual({});
    const kinds = two.reader.kinds().filter((k) => k !== "heartbeat" && k !== "kvServerMessage");
    expect(kinds.slice(0, 3)).toEqual(["summaryStarted", "summary", "summaryCompleted"]);
    expect(kinds.slice(-5)).toEqual([
      "turnEnded",
      "conversationCheckpointUpdate",
      "conversationCheckpointUpdate",
      "conversationCheckpointUpdate",
      "end",
    ]);
    expect(two.reader.text()).toBe("");

    const [, summarizer] = await scenario.requests(2);
    const summarizerRequest = parse(summarizer!.body);
    expect(summarizerRequest.tools).toBeUndefined();
    expect(summarizerRequest.messages.at(-1)?.content).toMatch(/summary/i);

    const state = two.reader.checkpoints().at(-1)!;
    expect(state.selfSummaryCount).toBe(1);
    const summaryBlob = two.reader.blobs.get(toHex(state.summary!))!;
    expect(fromBinary(ConversationSummarySchema, summaryBlob).summary).toBe(summary);
    const archive = fromBinary(ConversationSummaryArchiveSchema, two.reader.blobs.get(toHex(state.summaryArchive!))!);
    expect(archive.summary).toBe(summary);
    expect(archive.summarizedMessages.length).toBe(2); // the first question and its answer

    const three = await startTurn({ conversationId, text: "what now?" });
    expect(await three.reader.end()).toEqual({});
    const [, , third] = await scenario.requests(3);
    const messages = parse(third!.body).messages;
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(messages[1]!.content).toBe(`<conversation_summary>\n${summary}\n</conversation_summary>`);
    expect(messages[2]!.content).toBe("what now?");
  });

  it("accepts summarize_action as the run's action", async () => {
    const scenario = await createScenario([chatText(["hi"]), chatText(["short summary"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `hi ${scenario.marker}` });
    expect(await one.reader.end()).toEqual({});
    const message = clientMessage({
      message: {
        case: "runRequest",
        value: { conversationId, requestedModel: { modelId: "fake-model" }, action: { action: { case: "summarizeAction", value: {} } } },
      },
    });
    const two = await startTurn({ conversationId: "", text: "", message });
    expect(await two.reader.end()).toEqual({});
    expect(two.reader.updates().find((u) => u.case === "summary")?.value).toMatchObject({ summary: "short summary" });
  });

  it("compacts automatically before a call that would overflow the context window, keeping the current query", async () => {
    const big = (label: string) => `${label} ${"x".repeat(60_000)}`;
    const id = crypto.randomUUID();
    const scenario = await createScenario(
      [chatText(["noted"]), chatText([`summary of a long chat (scenario:${id})`]), chatText(["answer after compaction"])],
      id,
    );
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `${big("first")} ${scenario.marker}`, model: "fake-small" });
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: big("second"), model: "fake-small" });
    expect(await two.reader.end()).toEqual({});
    expect(two.reader.text()).toBe("answer after compaction");

    const requests = await scenario.requests(3);
    expect(parse(requests[1]!.body).tools).toBeUndefined();
    const after = parse(requests[2]!.body).messages;
    expect(after.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(after[1]!.content).toContain("summary of a long chat");
    expect(after[2]!.content.startsWith("second ")).toBe(true);
  });

  it("compacts once after a prompt-too-long refusal and retries the call", async () => {
    const id = crypto.randomUUID();
    const scenario = await createScenario(
      [
        chatText(["first"]),
        httpError(
          400,
          "This model's maximum context length is 1000 tokens. Your prompt is too long.",
          {},
          { code: "context_length_exceeded" },
        ),
        chatText([`compressed (scenario:${id})`]),
        chatText(["fits now"]),
      ],
      id,
    );
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `start ${scenario.marker}` });
    expect(await one.reader.end()).toEqual({});
    const two = await startTurn({ conversationId, text: "continue" });
    expect(await two.reader.end()).toEqual({});
    expect(two.reader.text()).toBe("fits now");
    const [, , , last] = await scenario.requests(4);
    expect(parse(last!.body).messages.map((m) => m.role)).toEqual(["system", "user", "user"]);
  });
});
