// The per-request ordering of appends by append_seqno.
import { describe, expect, it } from "vitest";
import { INBOX_MAX_BUFFERED, OrderedInbox } from "../../src/durable/inbox.ts";

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

  it("refuses to buffer without bound when an early seqno never arrives", () => {
    const inbox = new OrderedInbox<number>();
    for (let n = 1; n <= INBOX_MAX_BUFFERED; n++) expect(inbox.push(n, n).status).toBe("buffered");
    expect(inbox.push(INBOX_MAX_BUFFERED + 1, 0)).toEqual({ status: "overflow" });
    expect(inbox.push(0, 0).status).toBe("released");
  });
});
