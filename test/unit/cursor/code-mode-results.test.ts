// Code-mode results as the model sees them: Codex's header, error item and output
// truncation (the expected strings follow Codex's own truncation tests).
import { describe, expect, it } from "vitest";
import type { ContentItem } from "../../../src/code-mode/engine/engine-types.ts";
import { formatRuntimeResponse, resultText, wallTimeSeconds } from "../../../src/cursor/code-mode/result-format.ts";
import { approxTokenCount, formattedTruncate, truncateItems, truncateMiddle } from "../../../src/cursor/code-mode/truncation.ts";

const text = (t: string): ContentItem => ({ type: "input_text", text: t });
const image = (url: string): ContentItem => ({ type: "input_image", image_url: url, detail: "high" });

describe("truncateMiddle", () => {
  it("keeps a text within its budget unchanged", () => {
    expect(truncateMiddle("short output", 100)).toBe("short output");
  });

  it("cuts the middle on character boundaries and counts the tokens over budget", () => {
    expect(truncateMiddle("😀😀😀😀😀😀😀😀😀😀\nsecond line with text\n", 8)).toBe("😀😀😀😀…8 tokens truncated… line with text\n");
    expect(truncateMiddle("abcdef", 0)).toBe("…2 tokens truncated…");
  });
});

describe("formattedTruncate", () => {
  it("puts the warning with the original token count and line count over a cut text", () => {
    const content = "this is an example of a long output that should be truncated\nalso some other line";
    expect(formattedTruncate(content, 10)).toBe(
      "Warning: truncated output (original token count: 21)\nTotal output lines: 2\n\nthis is an example o…11 tokens truncated…also some other line",
    );
    expect(formattedTruncate("example output", 1)).toBe(
      "Warning: truncated output (original token count: 4)\nTotal output lines: 1\n\nex…3 tokens truncated…ut",
    );
    expect(formattedTruncate("example output", 10)).toBe("example output");
  });
});

describe("truncateItems", () => {
  it("joins texts with newlines and cuts them as one when they are all text", () => {
    expect(truncateItems([text("abcdefgh"), text("ijklmnop")], 2)).toEqual([
      text("Warning: truncated output (original token count: 5)\nTotal output lines: 2\n\nabcd…3 tokens truncated…mnop"),
    ]);
    const under = [text("alpha"), text(""), text("beta")];
    expect(truncateItems(under, 8)).toEqual(under);
  });

  it("shares the budget among texts in order when images are present, keeps every image, and counts what it left out", () => {
    const chunk =
      "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega.\n";
    const limit = approxTokenCount(chunk) * 3;
    const out = truncateItems([text(chunk), text(chunk), image("data:img"), text(chunk.repeat(10)), text(chunk), text(chunk)], limit);
    expect(out).toHaveLength(5);
    expect(out.slice(0, 3)).toEqual([text(chunk), text(chunk), image("data:img")]);
    expect((out[3] as { text: string }).text).toContain("tokens truncated");
    expect(out[4]).toEqual(text("[omitted 2 text items ...]"));
  });
});

describe("formatRuntimeResponse", () => {
  it("puts the status and the wall time in a header before the cell's items", () => {
    const done = formatRuntimeResponse({ kind: "completed", cellId: "1", items: [text("hello"), text("world")] }, undefined, 1234);
    expect(done.success).toBe(true);
    expect(done.items).toEqual([text("Script completed\nWall time 1.2 seconds\nOutput:\n"), text("hello"), text("world")]);
    expect(resultText(done.items).text).toBe("Script completed\nWall time 1.2 seconds\nOutput:\nhello\nworld");
  });

  it("names a yielded cell by its id, and says when it was terminated", () => {
    const header = (r: Parameters<typeof formatRuntimeResponse>[0]) =>
      (formatRuntimeResponse(r, undefined, 0).items[0] as { text: string }).text;
    expect(header({ kind: "yielded", cellId: "g2:3", items: [] })).toBe(
      "Script running with cell ID g2:3\nWall time 0.0 seconds\nOutput:\n",
    );
    expect(header({ kind: "terminated", cellId: "3", items: [] })).toBe("Script terminated\nWall time 0.0 seconds\nOutput:\n");
  });

  it("appends the error to a failed cell's output, fails the call, and truncates the error with the output", () => {
    const failed = formatRuntimeResponse(
      { kind: "completed", cellId: "1", items: [text("partial")], errorText: "RangeError: x" },
      undefined,
      0,
    );
    expect(failed.success).toBe(false);
    expect(failed.items).toEqual([
      text("Script failed\nWall time 0.0 seconds\nOutput:\n"),
      text("partial"),
      text("Script error:\nRangeError: x"),
    ]);
    const cut = formatRuntimeResponse({ kind: "completed", cellId: "1", items: [text("x".repeat(100))], errorText: "boom" }, 5, 0);
    expect(cut.items).toHaveLength(2);
    expect((cut.items[1] as { text: string }).text).toMatch(
      /^Warning: truncated output \(original token count: 30\)\nTotal output lines: 3\n\n/,
    );
  });

  it("keeps images and lists their URLs apart from the text", () => {
    const out = formatRuntimeResponse(
      { kind: "completed", cellId: "1", items: [text("see"), image("data:image/png;base64,AAAA")] },
      undefined,
      0,
    );
    expect(resultText(out.items)).toEqual({
      text: "Script completed\nWall time 0.0 seconds\nOutput:\nsee",
      imageUrls: ["data:image/png;base64,AAAA"],
    });
  });

  it("says where a cell's audio went, since no tool result can carry it", () => {
    const out = formatRuntimeResponse(
      { kind: "completed", cellId: "1", items: [text("clip:"), { type: "input_audio", audio_url: "data:audio/wav;base64,AAAA" }] },
      undefined,
      0,
    );
    expect(resultText(out.items).text).toBe(
      "Script completed\nWall time 0.0 seconds\nOutput:\nclip:\n[audio output omitted: this model's tool results cannot carry audio]",
    );
  });

  it("rounds the wall time to a tenth of a second", () => {
    expect([0, 49, 50, 1_049, 12_345].map(wallTimeSeconds)).toEqual(["0.0", "0.0", "0.1", "1.0", "12.3"]);
  });
});
