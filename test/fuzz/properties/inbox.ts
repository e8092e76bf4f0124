// Properties of the per-request append ordering (src/cursor/session/inbox.ts): appends
// arriving in any order, with any duplicates, come out each exactly once, in
// seqno order, the first copy of each kept.
import fc from "fast-check";
import { expect } from "vitest";
import { OrderedInbox } from "../../../src/cursor/session/inbox.ts";
import type { FuzzProperty } from "../support/fuzz-property.ts";

/** Seqnos 0..n-1 in an arbitrary arrival order, some sent more than once (retries). */
const arrivals = fc.integer({ min: 1, max: 80 }).chain((n) =>
  fc
    .tuple(fc.array(fc.integer({ min: 0, max: n - 1 }), { maxLength: n }), fc.constant([...Array(n).keys()]))
    .chain(([extra, all]) => fc.shuffledSubarray([...all, ...extra], { minLength: n + extra.length }))
    .map((order) => ({ n, order })),
);

export const inboxProperties: FuzzProperty[] = [
  {
    name: "any permutation and duplication of seqnos releases each append exactly once, in seqno order, the first copy of each",
    runs: 500,
    property: fc.property(arrivals, ({ n, order }) => {
      const inbox = new OrderedInbox<{ seqno: number; copy: number }>();
      const copies = new Map<number, number>();
      const released: { seqno: number; copy: number }[] = [];
      for (const seqno of order) {
        const copy = copies.get(seqno) ?? 0;
        copies.set(seqno, copy + 1);
        const result = inbox.push(seqno, { seqno, copy });
        if (result.status === "released") released.push(...result.items);
        else if (copy > 0) expect(["duplicate", "stale"]).toContain(result.status);
        else expect(result.status).toBe("buffered");
      }
      expect(released).toEqual([...Array(n).keys()].map((seqno) => ({ seqno, copy: 0 })));
    }),
  },
  {
    name: "whatever has arrived, what is released is exactly the gap-free prefix from seqno 0",
    runs: 500,
    property: fc.property(fc.array(fc.integer({ min: 0, max: 60 }), { maxLength: 120 }), (order) => {
      const inbox = new OrderedInbox<number>();
      const released: number[] = [];
      for (const seqno of order) {
        const result = inbox.push(seqno, seqno);
        if (result.status === "released") released.push(...result.items);
      }
      const seen = new Set(order);
      let prefix = 0;
      while (seen.has(prefix)) prefix++;
      expect(released).toEqual([...Array(prefix).keys()]);
    }),
  },
];
