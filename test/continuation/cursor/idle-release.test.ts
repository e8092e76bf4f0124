// An idle conversation lets go of an ended request's frames on a schedule (docs/protocol.md#limits):
// this project's BYOK_REQUEST_TTL_MS is 4 s. Before it a RunSSE for the request replays the turn;
// after it, with no other request arriving meanwhile, only the turn's end is left (from SQLite).
import { describe, expect, it } from "vitest";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { FrameReader, startTurn } from "../../support/cursor-client.ts";

const REQUEST_TTL_MS = 4_000;
/** How long past the TTL the frames may stay: the sweep's timer, a loaded machine. */
const RELEASE_WITHIN_MS = REQUEST_TTL_MS + 6_000;

async function replayedText(requestId: string): Promise<string> {
  const reader = await FrameReader.open(requestId, { respond: false });
  expect(await reader.end()).toEqual({});
  return reader.text();
}

describe("an idle conversation's memory", () => {
  it("drops an ended request's frames after the request TTL without any other request arriving", {
    timeout: RELEASE_WITHIN_MS + 10_000,
  }, async () => {
    const scenario = await createScenario([chatText(["kept ", "a while"])]);
    const { requestId, reader } = await startTurn({ conversationId: crypto.randomUUID(), text: `idle ${scenario.marker}` });
    expect(await reader.end()).toEqual({});
    const endedAt = Date.now();
    expect(await replayedText(requestId)).toBe("kept a while");
    let text = "kept a while";
    while (text !== "" && Date.now() - endedAt < RELEASE_WITHIN_MS) {
      await new Promise((resolve) => setTimeout(resolve, 500)); // polling a timer-driven release, bounded above
      text = await replayedText(requestId);
    }
    expect(text).toBe("");
    expect(Date.now() - endedAt).toBeGreaterThanOrEqual(REQUEST_TTL_MS);
  });
});
