// The request context in the history: appended once when new or changed, never
// when it says what the latest context message already says.
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { RequestContextSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { contextEntry, latestContext, REQUEST_CONTEXT_KEY_PREFIX } from "../../../src/cursor/context/context-message.ts";

const NOW = new Date("2026-05-05T10:00:00Z");
const withShell = (shell: string) => create(RequestContextSchema, { env: { shell, timeZone: "UTC" } });

describe("context messages", () => {
  it("adds a user message for a first context, nothing for the same one again, and a new one when it changes", async () => {
    const first = await contextEntry(latestContext([]), withShell("zsh"), NOW);
    expect(first.item?.message.role).toBe("user");
    expect(first.item?.messageKey?.startsWith(REQUEST_CONTEXT_KEY_PREFIX)).toBe(true);
    const history = [{ messageKey: "system" }, { messageKey: first.item!.messageKey! }, { messageKey: "cursor:user:m1" }];
    expect((await contextEntry(latestContext(history), withShell("zsh"), NOW)).item).toBeUndefined();
    const changed = await contextEntry(latestContext(history), withShell("bash"), NOW);
    expect(changed.item?.message).toMatchObject({ role: "user" });
    expect(changed.item?.messageKey).not.toBe(first.item?.messageKey);
  });

  it("keys a context that comes back after another one uniquely, and compares only with the latest", async () => {
    const a = await contextEntry(latestContext([]), withShell("a"), NOW);
    const b = await contextEntry(a.mark, withShell("b"), NOW);
    const again = await contextEntry(b.mark, withShell("a"), NOW);
    expect(again.item).toBeDefined();
    const keys = [a.item!.messageKey, b.item!.messageKey, again.item!.messageKey];
    expect(new Set(keys).size).toBe(3);
    expect(latestContext(keys.map((messageKey) => ({ messageKey: messageKey! })))).toEqual(again.mark);
  });

  it("keys a context uniquely after compaction kept the latest context message with its old key", async () => {
    const a = await contextEntry(latestContext([]), withShell("a"), NOW);
    const b = await contextEntry(a.mark, withShell("b"), NOW);
    const aAgain = await contextEntry(b.mark, withShell("a"), NOW);
    // After compaction the live history is the summary and a copy of the latest context message.
    const compacted = [{ messageKey: "summary:run-1" }, { messageKey: aAgain.item!.messageKey! }];
    const next = await contextEntry(latestContext(compacted), withShell("b"), NOW);
    const then = await contextEntry(next.mark, withShell("a"), NOW);
    expect(then.item).toBeDefined();
    expect(new Set([...compacted.map((m) => m.messageKey), next.item!.messageKey, then.item!.messageKey]).size).toBe(4);
  });

  it("adds nothing for no context or one with nothing to say", async () => {
    expect((await contextEntry(latestContext([]), undefined, NOW)).item).toBeUndefined();
    expect((await contextEntry(latestContext([]), create(RequestContextSchema, { webSearchEnabled: false }), NOW)).item).toBeUndefined();
  });
});
