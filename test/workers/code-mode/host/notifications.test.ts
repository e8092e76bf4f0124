// Notifications awaiting their ack: each is let go of when acknowledged, when its cell
// stops caring (its signal), or when the session ends, so none is held for ever.
import { describe, expect, it } from "vitest";
import { PendingNotifications } from "../../../../src/code-mode/host/notifications.ts";

describe("pending notifications", () => {
  it("frees a notification's slot when it is acknowledged or its signal fires, and holds none for a signal already fired", async () => {
    const pending = new PendingNotifications();
    const acked = pending.wait("a", new AbortController().signal);
    const dropped = new AbortController();
    const abandoned = pending.wait("b", dropped.signal);
    const kept = pending.wait("c", new AbortController().signal);
    expect(pending.size).toBe(3);
    pending.acknowledge("a");
    dropped.abort();
    await Promise.all([acked, abandoned]);
    expect(pending.size).toBe(1);
    await pending.wait("d", AbortSignal.abort());
    expect(pending.size).toBe(1);
    pending.releaseAll();
    await kept;
    expect(pending.size).toBe(0);
  });
});
