// What of a backend's hits reaches the model and the card (src/cursor/search/hits.ts).
import { describe, expect, it } from "vitest";
import { cleanHits } from "../../../src/cursor/search/hits.ts";

const hit = (url: string, title = "t", snippet = "s") => ({ title, url, snippet });

describe("cleanHits", () => {
  it("turns markup and entities into plain text and collapses whitespace", () => {
    const [clean] = cleanHits(
      [hit("https://a.example", "Tom &amp; Jerry&#39;s &#x4E2D;", "The <strong>best</strong>\n\n  cartoon &lt;ever&gt; &bogus;")],
      5,
    );
    expect(clean).toEqual({ title: "Tom & Jerry's 中", url: "https://a.example", snippet: "The best cartoon <ever> &bogus;" });
  });

  it("keeps the first max_results hits with an http(s) URL, once per URL", () => {
    const hits = [
      hit("https://a.example"),
      hit("javascript:alert(1)"),
      hit(""),
      hit("https://a.example"),
      hit("http://b.example"),
      hit("https://c.example"),
    ];
    expect(cleanHits(hits, 2).map((h) => h.url)).toEqual(["https://a.example", "http://b.example"]);
  });

  it("bounds titles and snippets and drops absurdly long URLs", () => {
    const [clean, ...rest] = cleanHits(
      [hit("https://a.example", "x".repeat(1000), "y".repeat(5000)), hit(`https://b.example/${"z".repeat(2000)}`)],
      5,
    );
    expect(clean!.title.length).toBeLessThanOrEqual(200);
    expect(clean!.snippet.length).toBeLessThanOrEqual(500);
    expect(clean!.snippet.endsWith("…")).toBe(true);
    expect(rest).toEqual([]);
  });
});
