// The continuation window (docs/protocol.md#message-flow): after turn_ended the stream
// stays open 2 s, and a runtime user message in that time is the next turn on it.
// This file runs in its own project with the production window.
import { describe, expect, it } from "vitest";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { appendOk, startTurn, updateCase, userMessageAction } from "../../support/cursor-client.ts";
import { offeredTools } from "../../support/provider-bodies.ts";

const contents = (body: string) => (JSON.parse(body) as { messages: { content: string | null }[] }).messages.map((m) => m.content);

describe("continuation window", () => {
  it("continues a user message sent right after turn_ended as the next turn on the same stream, before its one end-stream", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"])]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `first ${scenario.marker}` });
    await reader.until((f) => updateCase(f) === "turnEnded", "the first turn_ended");
    await reader.send(userMessageAction("and then?", "m-next"));
    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("onetwo");
    expect(reader.updates().filter((u) => u.case === "turnEnded")).toHaveLength(2);
    const [, second] = await scenario.requests(2);
    expect(contents(second!.body).slice(-3)).toEqual([`first ${scenario.marker}`, "one", "and then?"]);
  });

  it("opens a new run for a user message that arrives after the window closed", async () => {
    const scenario = await createScenario([chatText(["first"]), chatText(["second"])]);
    const conversationId = crypto.randomUUID();
    const one = await startTurn({ conversationId, text: `late ${scenario.marker}` });
    // The end-stream comes only when the window has passed.
    expect(await one.reader.end()).toEqual({});
    await appendOk(one.requestId, "next", userMessageAction("a late thought", "late-1"));
    const two = await startTurn({ conversationId, text: "next question" });
    expect(await two.reader.end()).toEqual({});
    expect(two.reader.text()).toBe("second");
    const [, second] = await scenario.requests(2);
    expect(contents(second!.body).slice(-2)).toEqual(["next question", "a late thought"]);
  });

  it("keeps the previous turn's request context, and so its MCP tools, for a continuation whose message carries none", async () => {
    const scenario = await createScenario([chatText(["one"]), chatText(["two"])]);
    const mcpTools = [{ name: "docs-lookup", providerIdentifier: "docs", toolName: "lookup", inputSchemaJson: '{"type":"object"}' }];
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `tools ${scenario.marker}`, mcpTools });
    await reader.until((f) => updateCase(f) === "turnEnded", "the first turn_ended");
    await reader.send(userMessageAction("again", "m-again"));
    expect(await reader.end()).toEqual({});
    const [first, second] = await scenario.requests(2);
    const names = (body: string) => offeredTools("openai-chat", body).map((t) => t.name);
    expect(names(first!.body)).toContain("mcp__docs__lookup");
    expect(names(second!.body)).toEqual(names(first!.body));
  });
});
