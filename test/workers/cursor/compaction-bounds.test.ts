// Compaction that cannot hang or loop (docs/protocol.md#compaction): a deadline
// with a fallback, the user's new message interrupting it, compaction whenever the
// context fills again, an input that cannot fit refused before any call, and the
// compacted checkpoint sent before the next model call. The workers project's
// compaction deadline is 4 s (vitest.config.ts); fake-small's window is 32,000 tokens.
import { describe, expect, it } from "vitest";
import { fromBinary } from "@bufbuild/protobuf";
import { ConversationSummaryArchiveSchema, ConversationSummarySchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../../src/core/bytes.ts";
import { chatChunk, chatText, chatToolCalls, createScenario, httpError } from "../../support/fake-provider.ts";
import { type FrameReader, startTurn, userMessageAction } from "../../support/cursor-client.ts";
import { readSuccess } from "../../support/exec-replies.ts";

type Request = { messages: { role: string; content: string }[]; tools?: unknown[] };
const parse = (body: string) => JSON.parse(body) as Request;
const HANG = { steps: [{ hang: true as const }] };
/** About 15,000 tokens: two of them fill fake-small's window. */
const big = (label: string, marker: string) => `${label} ${marker} ${"x".repeat(60_000)}`;
/** A file of about 28,500 characters, under the Read tool's 30,000-character cap. */
const FILE = Array.from({ length: 15 }, (_, i) => `line ${i} ${"y".repeat(1_890)}`).join("\n");

function summaries(reader: FrameReader): string[] {
  return reader.updates().flatMap((u) => (u.case === "summary" ? [(u.value as { summary: string }).summary] : []));
}

/** Two turns on fake-small whose second overflows: its compaction's summary call gets `summary`. */
async function overflowingSecondTurn(summary: object, after: object[]) {
  const id = crypto.randomUUID();
  const scenario = await createScenario([chatText(["noted"]), summary, ...after], id);
  const conversationId = crypto.randomUUID();
  const one = await startTurn({ conversationId, text: big("first", scenario.marker), model: "fake-small" });
  expect(await one.reader.end()).toEqual({});
  const two = await startTurn({ conversationId, text: big("second", scenario.marker), model: "fake-small" });
  return { scenario, conversationId, two };
}

describe("compaction within bounds", () => {
  it("goes on after its deadline with the oldest messages dropped, and says so in the history", async () => {
    const { scenario, two } = await overflowingSecondTurn(HANG, [chatText(["answer after the fallback"])]);
    expect(await two.reader.end()).toEqual({});
    expect(two.reader.text()).toBe("answer after the fallback");

    const note =
      "The 2 oldest messages of this conversation were dropped without a summary, because the summary was not written within 4 s. " +
      "The 1 newest messages follow as they were.";
    expect(summaries(two.reader)).toEqual([note]);
    const after = parse((await scenario.requests(3))[2]!.body).messages;
    expect(after.map((m) => m.role)).toEqual(["system", "user", "user"]);
    expect(after[1]!.content).toBe(`<conversation_summary>\n${note}\n</conversation_summary>`);
    expect(after[2]!.content.startsWith("second ")).toBe(true);
    expect(two.reader.checkpoints().at(-1)!.selfSummaryCount).toBe(1);
  });

  it("takes a summary call the model refuses as no summary: the oldest messages are dropped instead", async () => {
    const refusal = {
      steps: [
        chatChunk("refused", { role: "assistant", content: null }),
        chatChunk("refused", { refusal: "I can't summarize that." }),
        chatChunk("refused", {}, "stop"),
        { data: "[DONE]" },
      ],
    };
    const { scenario, two } = await overflowingSecondTurn(refusal, [chatText(["answer after the fallback"])]);
    expect(await two.reader.end()).toEqual({});
    const [note] = summaries(two.reader);
    expect(note).toContain("because the model refused to summarize it");
    const after = parse((await scenario.requests(3))[2]!.body).messages;
    expect(after.map((m) => m.content).join("\n")).not.toContain("I can't summarize that.");
  });

  it("gives way to the user's new message, which lands right after the summary", async () => {
    const { scenario, two } = await overflowingSecondTurn(HANG, [chatText(["answered both"])]);
    await scenario.requests(2); // the summary call is waiting
    await two.reader.send(userMessageAction(`and one more thing ${scenario.marker}`, "during-compaction"));
    expect(await two.reader.end()).toEqual({});
    expect(two.reader.text()).toBe("answered both");

    const [note] = summaries(two.reader);
    expect(note).toContain("because a new message from the user interrupted the summary");
    const after = parse((await scenario.requests(3))[2]!.body).messages;
    expect(after.map((m) => m.role)).toEqual(["system", "user", "user", "user"]);
    expect(after[1]!.content).toContain(note);
    expect(after[2]!.content.startsWith("second ")).toBe(true);
    expect(after[3]!.content.startsWith("and one more thing")).toBe(true);
    const appended = two.reader.updates().filter((u) => u.case === "userMessageAppended");
    expect(appended).toHaveLength(1);
  });

  it("compacts again each time a long tool loop fills the context", async () => {
    const id = crypto.randomUUID();
    const reads = (round: number) =>
      chatToolCalls([
        { id: `r${round}-a`, name: "Read", args: [`{"path":"/a${round}.txt"}`] },
        { id: `r${round}-b`, name: "Read", args: [`{"path":"/b${round}.txt"}`] },
      ]);
    const scenario = await createScenario(
      [
        reads(1),
        reads(2),
        chatText([`summary one (scenario:${id})`]),
        reads(3),
        reads(4),
        chatText([`summary two (scenario:${id})`]),
        chatText(["read them all"]),
      ],
      id,
    );
    const { reader } = await startTurn(
      { conversationId: crypto.randomUUID(), text: `read everything ${scenario.marker}`, model: "fake-small" },
      { onExec: (exec, r) => r.send(readSuccess(exec, FILE)) },
    );
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("read them all");
    expect(summaries(reader)).toEqual([`summary one (scenario:${id})`, `summary two (scenario:${id})`]);

    const requests = (await scenario.requests(7)).map((r) => parse(r.body));
    expect(requests.map((r) => r.tools === undefined)).toEqual([false, false, true, false, false, true, false]);
    expect(requests[6]!.messages[1]!.content).toContain("summary two");
    const state = reader.checkpoints().at(-1)!;
    expect(state.selfSummaryCount).toBe(2);
    // The second summary replaced the first and the two rounds after it (a call, two results each): its own archive.
    const archive = fromBinary(ConversationSummaryArchiveSchema, reader.blobs.get(toHex(state.summaryArchive!))!);
    expect(archive.summary).toBe(`summary two (scenario:${id})`);
    expect(archive.summarizedMessages).toHaveLength(7);
  });

  it("refuses an input that cannot fit even compacted before any provider call, naming the sizes", async () => {
    const scenario = await createScenario([chatText(["never sent"])]);
    const { reader } = await startTurn({
      conversationId: crypto.randomUUID(),
      text: `${scenario.marker} ${"z".repeat(120_000)}`,
      model: "fake-small",
    });
    const end = await reader.end();
    expect(end.error?.code).toBe("resource_exhausted");
    expect(end.error?.message).toMatch(
      /^the input is about [\d,]+ tokens even with the earlier conversation compacted, and fake-small takes at most 24,000 \(a context window of 32,000 tokens, 8,000 of them kept for its answer\)/,
    );
    expect(reader.updates().some((u) => u.case === "summaryStarted")).toBe(false);
    expect(await scenario.requests(0)).toHaveLength(0);
  });

  it("sends the compacted checkpoint before the next model call, so a failure of that call keeps the summary", async () => {
    const summary = "what was said"; // the kept query still names the scenario
    const { scenario, conversationId, two } = await overflowingSecondTurn(chatText([summary]), [
      httpError(400, "the provider refused this request"),
      chatText(["back again"]),
    ]);
    const end = await two.reader.end();
    expect(end.error?.code).toBe("unavailable");
    const compacted = two.reader.checkpoints().find((c) => c.selfSummaryCount === 1);
    expect(compacted).toBeDefined();
    expect(fromBinary(ConversationSummarySchema, two.reader.blobs.get(toHex(compacted!.summary!))!).summary).toBe(summary);

    const three = await startTurn({ conversationId, text: "again", model: "fake-small" });
    expect(await three.reader.end()).toEqual({});
    const messages = parse((await scenario.requests(4))[3]!.body).messages;
    expect(messages[1]!.content).toBe(`<conversation_summary>\n${summary}\n</conversation_summary>`);
  });
});
