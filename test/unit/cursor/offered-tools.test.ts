// Which tools a run offers (src/cursor/tools/index.ts): WebSearch only with a search
// backend; everything else, and the tools.json order, stays as it is.
import { describe, expect, it } from "vitest";
import { AGENT_TOOLS, offeredTools, SUBAGENT_TOOLS } from "../../../src/cursor/tools/index.ts";

const names = (set: readonly { name: string }[]) => set.map((t) => t.name);

describe("offeredTools", () => {
  it("offers every tool of the set when a search backend is configured", () => {
    expect(offeredTools(AGENT_TOOLS, { webSearch: true })).toEqual(AGENT_TOOLS);
    expect(offeredTools(SUBAGENT_TOOLS, { webSearch: true })).toEqual(SUBAGENT_TOOLS);
  });

  it("leaves WebSearch out without a backend and keeps the other definitions in order, byte for byte", () => {
    for (const set of [AGENT_TOOLS, SUBAGENT_TOOLS]) {
      const offered = offeredTools(set, { webSearch: false });
      expect(names(offered)).toEqual(names(set).filter((name) => name !== "WebSearch"));
      expect(JSON.stringify(offered.map((t) => t.definition))).toBe(
        JSON.stringify(set.filter((t) => t.name !== "WebSearch").map((t) => t.definition)),
      );
    }
  });
});
