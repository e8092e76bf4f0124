// A text turn end to end over HTTP: Cursor client → worker → router →
// conversation object → fake provider, and back as Connect frames.
import { describe, expect, it } from "vitest";
import { chatText, createScenario, withGates } from "../../support/fake-provider.ts";
import { startTurn, updateCase } from "../../support/cursor-client.ts";

describe("a text turn", () => {
  it("streams the provider's chunks as text deltas before the provider has finished", async () => {
    const scenario = await createScenario([withGates(chatText(["Hel", "lo ", "world"]), { 2: "rest" })]);
    const conversationId = crypto.randomUUID();
    const { reader } = await startTurn({ conversationId, text: `say hello ${scenario.marker}` });

    const first = await reader.until((f) => updateCase(f) === "textDelta", "the first text delta");
    expect(
      first.kind === "message" && first.message.message.case === "interactionUpdate" && first.message.message.value.message.value,
    ).toMatchObject({ text: "Hel" });
    await scenario.reached("rest");
    await scenario.release("rest");

    expect(await reader.end()).toEqual({});
    expect(reader.text()).toBe("Hello world");
    const cases = reader.updates().map((u) => u.case);
    expect(cases.filter((c) => c === "turnEnded")).toHaveLength(1);
    expect(cases.indexOf("tokenDelta")).toBeLessThan(cases.indexOf("turnEnded"));
  });
});
