import { describe, expect, it } from "vitest";
import { RouteCache } from "../../src/http/route-cache.ts";

describe("the edge's route cache", () => {
  it("keeps a route per principal, so one principal's request id never finds another's conversation", () => {
    const routes = new RouteCache();
    routes.set("alice", "req-1", "conv-a");
    expect(routes.get("alice", "req-1")).toBe("conv-a");
    expect(routes.get("bob", "req-1")).toBeUndefined();
    // Names are length-prefixed: no principal/request split can collide with another.
    routes.set("a", "b:c", "conv-x");
    expect(routes.get("a:b", "c")).toBeUndefined();
  });

  it("drops the least recently used route beyond its bound", () => {
    const routes = new RouteCache({ maxEntries: 2 });
    routes.set("p", "r1", "c1");
    routes.set("p", "r2", "c2");
    expect(routes.get("p", "r1")).toBe("c1"); // r1 used last, so r2 goes first
    routes.set("p", "r3", "c3");
    expect(routes.size).toBe(2);
    expect(routes.get("p", "r2")).toBeUndefined();
    expect(routes.get("p", "r1")).toBe("c1");
    expect(routes.get("p", "r3")).toBe("c3");
  });

  it("forgets a route after a day, as the router does", () => {
    let nowMs = 0;
    const routes = new RouteCache({ now: () => nowMs });
    routes.set("p", "r", "c");
    nowMs = 24 * 60 * 60 * 1000;
    expect(routes.get("p", "r")).toBe("c");
    nowMs += 1;
    expect(routes.get("p", "r")).toBeUndefined();
    expect(routes.size).toBe(0);
  });
});
