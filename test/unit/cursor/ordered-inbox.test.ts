// The per-request ordering of appends by append_seqno.
import { describe, expect, it } from "vitest";
import { OrderedInbox, SEQNO_WINDOW } from "../../../src/cursor/session/inbox.ts";

describe("OrderedInbox", () => {
  it("releases appends that arrive in reverse order only when the gap fills, in seqno order", () => {
    const inbox = new OrderedInbox<string>();
    expect(inbox.push(3, "d")).toEqual({ status: "buffered" });
    expect(inbox.push(2, "c")).toEqual({ status: "buffered" });
    expect(inbox.push(1, "b")).toEqual({ status: "buffered" });
    expect(inbox.push(0, "a")).toEqual({ status: "released", items: ["a", "b", "c", "d"] });
    expect(inbox.push(4, "e")).toEqual({ status: "released", items: ["e"] }); // 4 is next
  });

  it("drops a duplicate of a buffered seqno and a stale seqno already released", () => {
    const inbox = new OrderedInbox<string>();
    expect(inbox.push(0, "a").status).toBe("released");
    expect(inbox.push(0, "a again")).toEqual({ status: "stale" });
    expect(inbox.push(2, "c")).toEqual({ status: "buffered" });
    expect(inbox.push(2, "c again")).toEqual({ status: "duplicate" });
    expect(inbox.push(1, "b")).toEqual({ status: "released", items: ["b", "c"] });
  });

  it("refuses a seqno more than SEQNO_WINDOW ahead of the next one, and buffers one at the edge", () => {
    const inbox = new OrderedInbox<number>();
    expect(inbox.push(SEQNO_WINDOW + 1, 0)).toEqual({ status: "too-far" });
    expect(inbox.push(SEQNO_WINDOW, 0)).toEqual({ status: "buffered" });
    expect(inbox.push(0, 0).status).toBe("released");
    expect(inbox.push(SEQNO_WINDOW + 1, 0)).toEqual({ status: "buffered" }); // next is 1 now
  });

  it("buffers only within the room it is given, in bytes, and frees bytes as appends are released", () => {
    const inbox = new OrderedInbox<string>();
    expect(inbox.push(1, "b", 600, 1000)).toEqual({ status: "buffered" });
    expect(inbox.push(2, "c", 600, 1000 - inbox.heldBytes)).toEqual({ status: "overflow" });
    expect(inbox.heldBytes).toBe(600);
    expect(inbox.push(0, "a", 10, 0)).toEqual({ status: "released", items: ["a", "b"] }); // the next seqno never waits
    expect(inbox.heldBytes).toBe(0);
  });

  it("drops everything waiting when its request ends, keeping the next seqno", () => {
    const inbox = new OrderedInbox<string>();
    inbox.push(0, "a");
    inbox.push(2, "c", 100);
    inbox.dropWaiting();
    expect(inbox.heldBytes).toBe(0);
    expect(inbox.push(1, "b")).toEqual({ status: "released", items: ["b"] });
    expect(inbox.next).toBe(2);
  });
});
