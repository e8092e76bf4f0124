// The admin API's docs page as built into the static assets (dashboard/dist/api/docs, docs/hosting.md#admin-api):
// Swagger UI from the pinned swagger-ui-dist, only same-origin files, no inline script or style, under
// the dashboard's CSP. e2e/dashboard.ts opens it in Chromium under `wrangler dev`.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
const docs = join(root, "dashboard/dist/api/docs");
const read = (file: string) => readFileSync(join(docs, file), "utf8");
const require = createRequire(import.meta.url);

describe("/api/docs in the static assets", () => {
  const html = read("index.html");

  it("loads only its own files: scripts and styles by relative path, none inline", () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[1]?.match(/src="([^"]+)"/)?.[1])).toEqual(["./swagger-ui-bundle.js", "./docs.js"]);
    expect(scripts.every((m) => m[2]?.trim() === "")).toBe(true);
    const styles = [...html.matchAll(/<link\b[^>]*href="([^"]+)"/g)].map((m) => m[1]);
    expect(styles).toEqual(["./swagger-ui.css", "./docs.css"]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=|https?:\/\/|\/\/[a-z]/i);
    for (const file of [...scripts.map((m) => m[1]?.match(/src="\.\/([^"]+)"/)?.[1]), ...styles.map((s) => s?.slice(2))]) {
      expect(read(file ?? "missing").length, file).toBeGreaterThan(0);
    }
  });

  it("is Swagger UI exactly as the pinned swagger-ui-dist ships it, started on /api/openapi.json without the remote validator", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    expect(pkg.devDependencies["swagger-ui-dist"]).toMatch(/^\d+\.\d+\.\d+$/);
    const dist = dirname(require.resolve("swagger-ui-dist/package.json"));
    for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
      expect(read(file) === readFileSync(join(dist, file), "utf8"), file).toBe(true);
    }
    const init = read("docs.js");
    expect(init).toContain('url: "/api/openapi.json"');
    expect(init).toContain("validatorUrl: null");
  });

  it("is served under the dashboard's strict CSP: nothing but its own origin, no inline script or style", () => {
    const headers = readFileSync(join(root, "dashboard/dist/_headers"), "utf8");
    const csp = headers.match(/^\/\*\n(?:\s+.*\n)*?\s+Content-Security-Policy: (.+)$/m)?.[1] ?? "";
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*\./);
    expect(csp).not.toMatch(/(?:script|style)-src/);
  });
});
