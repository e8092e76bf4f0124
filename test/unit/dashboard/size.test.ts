// The dashboard's first page loads under 100 KB of JavaScript (issue 12): the
// script and modulepreload files that dashboard/dist/index.html names, uncompressed.
// uPlot is not among them: the Usage page imports it when it opens (docs/dashboard.md); nor
// are the model catalogues, which the model form imports when it first fills from them.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

const dist = resolve(import.meta.dirname, "../../../dashboard/dist");
const LIMIT_BYTES = 100 * 1024;

/** The JS files index.html makes the browser load before anything else runs. */
function firstPageScripts(): string[] {
  const html = readFileSync(resolve(dist, "index.html"), "utf8");
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
  const preloads = [...html.matchAll(/<link\b[^>]*\brel="modulepreload"[^>]*\bhref="([^"]+)"/g)].map((m) => m[1]!);
  return [...new Set([...scripts, ...preloads])];
}

const read = (src: string) => readFileSync(resolve(dist, src.replace(/^\//, "")));

describe("the dashboard's first page", () => {
  it("loads its JavaScript from the dashboard's own files", () => {
    const scripts = firstPageScripts();
    expect(scripts.length).toBeGreaterThan(0);
    for (const src of scripts) expect(src).toMatch(/^\/assets\/[\w.-]+\.js$/);
  });

  it("loads less than 100 KB of JavaScript, uncompressed", () => {
    const sizes = firstPageScripts().map((src) => ({ src, bytes: read(src).length }));
    const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
    expect(total, JSON.stringify(sizes)).toBeLessThan(LIMIT_BYTES);
  });

  it("does not load uPlot", () => {
    for (const src of firstPageScripts()) {
      expect(src).not.toMatch(/uplot/i);
      const code = read(src).toString("utf8");
      // uPlot's own DOM class names: present only where its code is.
      expect(code).not.toContain("u-over");
      expect(code).not.toContain("u-legend");
    }
  });

  it("does not load the model catalogues", () => {
    for (const src of firstPageScripts()) {
      expect(src).not.toMatch(/genai-prices|catalogue|openrouter/i);
      const code = read(src).toString("utf8");
      // genai-prices' provider table and models.dev's entries: present only where their data is.
      expect(code).not.toContain("api_pattern");
      expect(code).not.toContain("release_date");
    }
  });
});
