// The bridge's ordering of a CompleteToolCall's reply before its session's stream messages
// (bridge/completion-order.ts): replies are deferred promises, the hold's cap a timer the
// test fires itself, so nothing here waits on the clock.
import { describe, expect, it } from "vitest";
import { CompletionOrder, type Timer } from "../../../bridge/completion-order.ts";
import { deferred } from "../../support/deferred.ts";

/** A timer that fires only when the test says so. */
function manualTimer() {
  const pending = new Set<{ run: () => void; ms: number }>();
  const timer: Timer = (run, ms) => {
    const entry = { run, ms };
    pending.add(entry);
    return () => pending.delete(entry);
  };
  return {
    timer,
    pending,
    fireAll: () => {
      for (const entry of [...pending]) {
        pending.delete(entry);
        entry.run();
      }
    },
  };
}

/** A stream's messages as the test pushes them, and what `inOrder` let through so far. */
function stream(order: CompletionOrder, sessionId: string) {
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  async function* messages() {
    for (;;) {
      const next = queue.shift();
      if (next !== undefined) yield next;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  const passed: string[] = [];
  const done = (async () => {
    for await (const message of order.inOrder(messages(), () => sessionId)) passed.push(message);
  })();
  return {
    passed,
    done,
    push(message: string) {
      queue.push(message);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

/** Lets every pending promise reaction run (one macrotask turn; no timer involved). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("CompletionOrder", () => {
  it("holds a session's messages until the reply of its CompleteToolCall in flight is out", async () => {
    const { timer } = manualTimer();
    const order = new CompletionOrder(timer);
    const s = stream(order, "s1");
    s.push("before");
    await settle();
    expect(s.passed).toEqual(["before"]);
    const reply = deferred();
    order.track("s1", reply.promise);
    s.push("outcome");
    s.push("next call");
    await settle();
    expect(s.passed).toEqual(["before"]);
    reply.resolve();
    await settle();
    expect(s.passed).toEqual(["before", "outcome", "next call"]);
    s.end();
    await s.done;
  });

  it("waits for every completion of the session in flight when a message arrives", async () => {
    const { timer } = manualTimer();
    const order = new CompletionOrder(timer);
    const first = deferred();
    const second = deferred();
    order.track("s1", first.promise);
    order.track("s1", second.promise);
    const s = stream(order, "s1");
    s.push("outcome");
    first.resolve();
    await settle();
    expect(s.passed).toEqual([]);
    second.resolve();
    await settle();
    expect(s.passed).toEqual(["outcome"]);
    s.end();
    await s.done;
  });

  it("caps the hold per completion, from when it went upstream: the messages behind a stalled reply go together once its cap passes", async () => {
    const clock = manualTimer();
    const order = new CompletionOrder(clock.timer);
    const s = stream(order, "s1");
    order.track("s1", new Promise<void>(() => {})); // a reply that never gets out
    expect([...clock.pending].map((entry) => entry.ms)).toEqual([1_000]);
    s.push("a");
    s.push("b");
    s.push("c");
    await settle();
    expect(s.passed).toEqual([]);
    expect(clock.pending.size).toBe(1); // one cap for the completion, none per message
    clock.fireAll();
    await settle();
    expect(s.passed).toEqual(["a", "b", "c"]);
    // Past its cap the stalled completion holds nothing more.
    s.push("d");
    await settle();
    expect(s.passed).toEqual(["a", "b", "c", "d"]);
    expect(clock.pending.size).toBe(0);
    s.end();
    await s.done;
  });

  it("holds only the session whose CompleteToolCall is in flight", async () => {
    const { timer } = manualTimer();
    const order = new CompletionOrder(timer);
    const reply = deferred();
    order.track("s1", reply.promise);
    const other = stream(order, "s2");
    const held = stream(order, "s1");
    other.push("s2 message");
    held.push("s1 message");
    await settle();
    expect(other.passed).toEqual(["s2 message"]);
    expect(held.passed).toEqual([]);
    reply.resolve();
    await settle();
    expect(held.passed).toEqual(["s1 message"]);
    other.end();
    held.end();
    await Promise.all([other.done, held.done]);
  });

  it("keeps nothing for a session once its completions are over, by reply or by cap, and stops their timers", async () => {
    const clock = manualTimer();
    const order = new CompletionOrder(clock.timer);
    const replied = deferred();
    order.track("s1", replied.promise);
    order.track("s2", new Promise<void>(() => {}));
    expect(order.sessionsHeld).toBe(2);
    replied.resolve();
    await settle();
    expect(order.sessionsHeld).toBe(1);
    expect(clock.pending.size).toBe(1); // s1's cap cancelled with its reply out
    clock.fireAll();
    await settle();
    expect(order.sessionsHeld).toBe(0);
  });
});
