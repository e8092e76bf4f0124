// The import rules of docs/architecture.md#import-rules, enforced: the table there is the
// rule set (parsed here), so the picture and the check cannot drift apart. A file belongs
// to the most specific folder of the table that holds it; it may import its own folder and
// the folders its row lists, and nothing else of the project's (packages are always fine).
import { readdirSync, readFileSync } from "node:fs";

const doc = readFileSync(new URL("docs/architecture.md", import.meta.url), "utf8");
const section = doc.slice(doc.indexOf("<!-- import-rules -->"), doc.indexOf("<!-- /import-rules -->"));
const lines = section.split("\n").filter((line) => line.startsWith("| `"));
const rows = lines.map((line) => {
  const cells = line.split("|").slice(1, -1).map((cell) => cell.trim());
  const folder = /^`([^`]+)`$/.exec(cells[0] ?? "")?.[1];
  if (cells.length !== 3 || folder === undefined) throw new Error(`docs/architecture.md#import-rules: a row is not | \`folder\` | holds | may import |: ${line}`);
  const allowed = cells[2] === "everything" ? null : cells[2] === "nothing" ? [] : [...cells[2].matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  if (allowed?.length === 0 && cells[2] !== "nothing") throw new Error(`docs/architecture.md#import-rules: say "nothing" or name folders: ${line}`);
  return { folder, allowed };
});
if (rows.length === 0) throw new Error("docs/architecture.md: no import-rules table found");

/** Folders of the project that are data, not code of a row: importable where a row names them. */
const DATA = ["migrations/", "prompt/"];
for (const { folder, allowed } of rows) {
  for (const target of allowed ?? []) {
    if (!DATA.includes(target) && target !== "src/" && !rows.some((r) => target.startsWith(r.folder))) {
      throw new Error(`docs/architecture.md#import-rules: ${folder} may import ${target}, which is in no row of the table`);
    }
  }
}
// Every file under src/ belongs to a row, so none escapes the rules by being new.
for (const entry of readdirSync(new URL("src/", import.meta.url), { withFileTypes: true })) {
  const path = `src/${entry.name}${entry.isDirectory() ? "/" : ""}`;
  if (!rows.some((r) => path.startsWith(r.folder) || r.folder.startsWith(path))) {
    throw new Error(`docs/architecture.md#import-rules: ${path} belongs to no row of the table`);
  }
}

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const prefix = (path) => `^${escape(path)}${path.endsWith("/") ? "" : "$"}`;
/** Anything of the project's: every folder of it, whether the table names it or not. */
const ours = "^(src|lib|bridge|cell-host|connector|dashboard|test|e2e|bench|scripts|migrations|prompt)/";

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
