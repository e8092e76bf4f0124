// `npm run e2e`: one real turn through `wrangler dev` against the fake provider,
// with a standard Connect client (connect-node). See e2e/main.ts.
import { ensureTransformTypes } from "../lib/relaunch.ts";

await ensureTransformTypes(import.meta.filename);
await import("./main.ts");
