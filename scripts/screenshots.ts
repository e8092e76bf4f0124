// `npm run screenshots`: every dashboard page at laptop and phone width, with
// realistic data, into docs/dashboard/ (docs/dashboard.md#screenshots).
import { ensureTransformTypes } from "../lib/relaunch.ts";

await ensureTransformTypes(import.meta.filename);
await import("./screenshots/take.ts");
