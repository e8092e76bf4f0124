// Messages and stored values far over a Durable Object SQLite row's 2 MB are kept
// in parts (docs/architecture.md#large-values): an 8 MiB answer completes its
// turn and is in the next turn's history whole; a large code-mode value round-trips.
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { conversationName } from "../src/durable/names.ts";
import { CodeModeStore } from "../src/store/code-mode-store.ts";
import { chatText, createScenario } from "./support/fake-provider.ts";
import { startTurn } from "./support/cursor-client.ts";

const MiB = 1024 * 1024;
const stubOf = (conversationId: string) => env.CONVERSATION.getByName(conversationName("local", conversationId));

/** `chars` characters of mixed width (1-, 2-, 3- and 4-byte UTF-8), so part boundaries fall anywhere. */
function mixedText(chars: number, salt: string): string {
  const unit = `${salt} plain ascii, é à ü, 漢字かな, 😀🚀 `;
  return unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars).replace(/[\ud800-\udbff]$/, "x");
}

describe("large messages", () => {
  it("completes a turn with an 8 MiB answer and sends the whole answer in the next turn's history", async () => {
    const answer = mixedText(8 * MiB, "answer");
    const parts = Array.from({ length: 64 }, (_, i) => answer.slice((i * answer.length) / 64, ((i + 1) * answer.length) / 64));
    const scenario = await createScenario([chatText(parts), chatText(["short reply"])]);
    const conversationId = crypto.randomUUID();

    const first = await startTurn({ conversationId, text: `write a lot ${scenario.marker}` });
    expect(await first.reader.end()).toEqual({});
    expect(first.reader.text().length).toBe(answer.length);
    expect(first.reader.text() === answer).toBe(true);

    const second = await startTurn({ conversationId, text: "and now briefly" });
    expect(await second.reader.end()).toEqual({});
    expect(second.reader.text()).toBe("short reply");
    const [, next] = await scenario.requests(2);
    const messages = (JSON.parse(next!.body) as { messages: { role: string; content: string }[] }).messages;
    const previous = messages.filter((m) => m.role === "assistant");
    expect(previous).toHaveLength(1);
    expect(previous[0]!.content.length).toBe(answer.length);
    expect(previous[0]!.content === answer).toBe(true);
    expect(messages.at(-1)).toEqual({ role: "user", content: "and now briefly" });
  });

  it("round-trips a code-mode stored value of 8 MiB", async () => {
    const conversationId = crypto.randomUUID();
    const big = { text: mixedText(8 * MiB, "value"), list: Array.from({ length: 1000 }, (_, i) => i) };
    const read = await runInDurableObject(stubOf(conversationId), (_instance, state) => {
      const store = new CodeModeStore(drizzle(state.storage, { logger: false }), conversationId);
      store.commitValues({ big, small: "kept" });
      const first = store.values();
      store.commitValues({ big: "smaller now" });
      return { first, second: store.values() };
    });
    expect(read.first).toEqual({ big, small: "kept" });
    expect(read.second).toEqual({ big: "smaller now", small: "kept" });
  });
});
