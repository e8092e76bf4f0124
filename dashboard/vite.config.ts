// Builds the dashboard (docs/dashboard.md) into dashboard/dist, which the worker serves
// as static assets ([assets] in wrangler.toml). Preact's JSX through Vite's own oxc
// transform, so no Babel preset is needed. The output is committed and
// `npm run check:generated` rebuilds it to check that it is current.
// The admin API's docs page (public/api/docs) gets Swagger UI's files from the pinned
// swagger-ui-dist package, copied unchanged into dist/api/docs.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { defineConfig, type Plugin } from "vite";

const SWAGGER_UI_FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"];

/** Swagger UI's files into dist/api/docs, as the npm package ships them. */
function swaggerUiAssets(): Plugin {
  const dir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return {
    name: "byok-swagger-ui-assets",
    apply: "build",
    generateBundle() {
      for (const file of SWAGGER_UI_FILES) {
        this.emitFile({ type: "asset", fileName: `api/docs/${file}`, source: readFileSync(join(dir, file)) });
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  // Plain output, the same on every machine: no build-time stamps, no source maps.
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  plugins: [swaggerUiAssets()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // Every browser that runs the dashboard has modulepreload; the polyfill would only add bytes.
    modulePreload: { polyfill: false },
  },
});
