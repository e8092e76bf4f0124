// One model answer holds at most 12 MiB (docs/protocol.md#limits): a provider streaming more
// (any hosted user picks their own base_url) is stopped there, the client gets a clear error, and
// the text the model wrote up to the cap stays in the conversation.
import { describe, expect, it } from "vitest";
import { ANSWER_MAX_BYTES } from "../../../src/cursor/agent/message-limits.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";

const MIB = 1024 * 1024;

describe("answer limit", () => {
  it("stops an answer past 12 MiB with a clear error and keeps what came before the cap", async () => {
    const scenario = await createScenario([chatText(Array.from({ length: 16 }, (_, i) => String(i % 10).repeat(MIB)))]);
    const { reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `a lot ${scenario.marker}` });
    const end = await reader.end();
    expect(end.error?.message).toContain("the model's answer passed 12 MiB, the most one answer may hold");
    const text = reader.text();
    expect(text.length).toBeGreaterThan(ANSWER_MAX_BYTES - MIB);
    expect(text.length).toBeLessThanOrEqual(ANSWER_MAX_BYTES);
  });
});
