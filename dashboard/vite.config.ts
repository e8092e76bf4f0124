// Builds the dashboard (docs/dashboard.md) into dashboard/dist, which the worker serves
// as static assets ([assets] in wrangler.toml). Preact's JSX through Vite's own oxc
// transform, so no Babel preset is needed. The output is committed and
// `npm run check:generated` rebuilds it to check that it is current.
import { defineConfig } from "vite";

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  // Plain output, the same on every machine: no build-time stamps, no source maps.
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    // Every browser that runs the dashboard has modulepreload; the polyfill would only add bytes.
    modulePreload: { polyfill: false },
  },
});
