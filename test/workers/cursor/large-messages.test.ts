// Messages and stored values far over a Durable Object SQLite row's 2 MB are kept
// in parts (docs/architecture.md#large-values): an 8 MiB answer completes its
// turn and is in the next turn's history whole; a large code-mode value round-trips.
import { describe, expect, it } from "vitest";
import { env, runInDurableObject } from "cloudflare:test";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { conversationName } from "../../../src/core/object-names.ts";
import { CodeModeStore } from "../../../src/cursor/store/code-mode-cells.ts";
import { ConversationStore } from "../../../src/cursor/store/conversation-store.ts";
import { chatText, createScenario } from "../../support/fake-provider.ts";
import { startTurn } from "../../support/cursor-client.ts";
import { createTeam, member } from "../../support/admin-client.ts";
import { storeCredential, storeModel } from "../../support/stored-models.ts";

const MiB = 1024 * 1024;
const stubOf = (conversationId: string) => env.CONVERSATION.getByName(conversationName("local", conversationId));

/** `chars` characters of mixed width (1-, 2-, 3- and 4-byte UTF-8), so part boundaries fall anywhere. */
function mixedText(chars: number, salt: string): string {
  const unit = `${salt} plain ascii, é à ü, 漢字かな, 😀🚀 `;
  return unit
    .repeat(Math.ceil(chars / unit.length))
    .slice(0, chars)
    .replace(/[\ud800-\udbff]$/, "x");
}

function sameBytes(a: Uint8Array | null | undefined, b: Uint8Array): boolean {
  if (!a || a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

describe("large messages", () => {
  it("completes a turn with an 8 MiB answer and sends the whole answer in the next turn's history", async () => {
    // 64 deltas, none ending inside a surrogate pair (a client gets each delta as UTF-8 on its own).
    const parts = Array.from({ length: 64 }, (_, i) => mixedText((8 * MiB) / 64, `part ${i}`));
    const answer = parts.join("");
    const scenario = await createScenario([chatText(parts), chatText(["short reply"])]);
    const conversationId = crypto.randomUUID();
    // A stored model with a window that holds the whole answer, so the next turn is not compacted.
    const who = await member((await createTeam()).id, "member");
    const credential = await storeCredential(who.token, "user", `sk-large-${crypto.randomUUID()}`);
    const model = (await storeModel(who.token, { credential_id: credential.id, scope: "user", context_window: 16_000_000 })).name;
    const as = { headers: { authorization: `Bearer ${who.token}` } };

    const first = await startTurn({ conversationId, model, text: `write a lot ${scenario.marker}` }, as);
    expect(await first.reader.end()).toEqual({});
    expect(first.reader.text().length).toBe(answer.length);
    expect(first.reader.text() === answer).toBe(true);

    const second = await startTurn({ conversationId, model, text: "and now briefly" }, as);
    expect(await second.reader.end()).toEqual({});
    expect(second.reader.text()).toBe("short reply");
    const [, next] = await scenario.requests(2);
    const messages = (JSON.parse(next!.body) as { messages: { role: string; content: string }[] }).messages;
    const previous = messages.filter((m) => m.role === "assistant");
    expect(previous).toHaveLength(1);
    expect(previous[0]!.content.length).toBe(answer.length);
    expect(previous[0]!.content === answer).toBe(true);
    expect(messages.at(-1)).toEqual({ role: "user", content: "and now briefly" });
  }, 60_000); // tens of MiB cross the stream, the store and the provider twice: bounded, but above the default

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

  it("keeps a tool message with a 9 MiB tool card, and a 9 MiB request-context part", async () => {
    const conversationId = crypto.randomUUID();
    const content = mixedText(3 * MiB, "tool result");
    const toolCard = new Uint8Array(9 * MiB);
    for (let i = 0; i < toolCard.length; i++) toolCard[i] = i % 251;
    const part = new Uint8Array(9 * MiB + 17);
    for (let i = 0; i < part.length; i++) part[i] = (i * 7) % 256;
    const read = await runInDurableObject(stubOf(conversationId), (_instance, state) => {
      const store = new ConversationStore(drizzle(state.storage, { logger: false }));
      store.ensureConversation(conversationId, "local");
      const message = { role: "tool" as const, toolCallId: "call-1", name: "Read", content };
      store.appendMessages(conversationId, "run-1", [{ message, toolCard, messageKey: "tool:1" }]);
      store.appendMessages(conversationId, "run-1", [{ message: { role: "assistant", content: "after" } }]);
      store.putContextBlob("ab", part);
      const [tool, after] = store.history(conversationId);
      const byKey = store.findByKey(conversationId, "tool:1");
      // Compared here: a deep equality over MiB of bytes in the test runner takes seconds.
      return {
        messages: [tool?.message, byKey?.message, after?.message],
        cardKept: sameBytes(tool?.toolCard, toolCard),
        partKept: sameBytes(store.contextBlob("ab"), part),
      };
    });
    const message = { role: "tool", toolCallId: "call-1", name: "Read", content };
    expect(read.messages).toEqual([message, message, { role: "assistant", content: "after" }]);
    expect(read.cardKept).toBe(true);
    expect(read.partKept).toBe(true);
  });
});
