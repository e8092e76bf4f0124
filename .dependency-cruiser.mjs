// The import rules of docs/architecture.md#import-rules, enforced: the table there is the
// rule set (parsed here), so the picture and the check cannot drift apart. A file belongs
// to the most specific folder of the table that holds it; it may import its own folder and
// the folders its row lists, and nothing else of the project's (packages are always fine).
import { readFileSync } from "node:fs";

const doc = readFileSync(new URL("docs/architecture.md", import.meta.url), "utf8");
const section = doc.slice(doc.indexOf("<!-- import-rules -->"), doc.indexOf("<!-- /import-rules -->"));
const rows = [...section.matchAll(/^\| `([^`]+)` \|[^|]*\| ([^|]+) \|$/gm)].map(([, folder, allowed]) => ({
  folder,
  allowed: allowed.trim() === "everything" ? null : [...allowed.matchAll(/`([^`]+)`/g)].map((m) => m[1]),
}));
if (rows.length === 0) throw new Error("docs/architecture.md: no import-rules table found");

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const prefix = (path) => `^${escape(path)}${path.endsWith("/") ? "" : "$"}`;
/** Every folder of the table, so that "anything else of the project's" is exactly these. */
const ours = `(${rows.map((r) => prefix(r.folder)).join("|")}|^migrations/|^prompt/)`;

const forbidden = [
  {
    name: "no-circular",
    severity: "error",
    comment: "no import cycles between modules (docs/architecture.md#import-rules)",
    from: {},
    to: { circular: true },
  },
];
for (const row of rows) {
  if (row.allowed === null) continue;
  // A more specific row takes its files out of this one's rule.
  const deeper = rows.filter((r) => r !== row && r.folder.startsWith(row.folder)).map((r) => prefix(r.folder));
  forbidden.push({
    name: `imports-of ${row.folder}`,
    severity: "error",
    comment: `${row.folder} may import ${row.allowed.length ? row.allowed.join(", ") : "nothing of the project's"} (docs/architecture.md#import-rules)`,
    from: { path: prefix(row.folder), ...(deeper.length && { pathNot: deeper.join("|") }) },
    to: { path: ours, pathNot: [prefix(row.folder), ...row.allowed.map(prefix)].join("|") },
  });
}

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dashboard/dist|bin|\\.cache)/" },
    parser: "swc",
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json", ".d.ts"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
