import { describe, expect, it } from "vitest";
import { RouteCache } from "../../../src/cursor/routes/route-cache.ts";
import { ROUTE_TTL_MS } from "../../../src/cursor/routes/route-rules.ts";

describe("the edge's route cache", () => {
  it("keeps a route per principal, so one principal's request id never finds another's conversation", () => {
    const routes = new RouteCache();
    routes.set("alice", "req-1", "conv-a", Date.now());
    expect(routes.get("alice", "req-1")).toBe("conv-a");
    expect(routes.get("bob", "req-1")).toBeUndefined();
    // Names are length-prefixed: no principal/request split can collide with another.
    routes.set("a", "b:c", "conv-x", Date.now());
    expect(routes.get("a:b", "c")).toBeUndefined();
  });

  it("drops the least recently used route beyond its bound", () => {
    const routes = new RouteCache({ maxEntries: 2 });
    routes.set("p", "r1", "c1", Date.now());
    routes.set("p", "r2", "c2", Date.now());
    expect(routes.get("p", "r1")).toBe("c1"); // r1 used last, so r2 goes first
    routes.set("p", "r3", "c3", Date.now());
    expect(routes.size).toBe(2);
    expect(routes.get("p", "r2")).toBeUndefined();
    expect(routes.get("p", "r1")).toBe("c1");
    expect(routes.get("p", "r3")).toBe("c3");
  });

  it("forgets a route an hour before the router may drop it, counted from its binding, not from when it was learned", () => {
    let nowMs = 0;
    const routes = new RouteCache({ now: () => nowMs });
    const boundAtMs = 0;
    nowMs = ROUTE_TTL_MS - 2 * 60 * 60 * 1000; // learned late, near the end of the router's keep
    routes.set("p", "r", "c", boundAtMs);
    nowMs = ROUTE_TTL_MS - 60 * 60 * 1000;
    expect(routes.get("p", "r")).toBe("c");
    nowMs += 1;
    expect(routes.get("p", "r")).toBeUndefined();
    expect(routes.size).toBe(0);
  });
});
