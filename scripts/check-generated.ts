// Fails when committed generated code (protobuf, wrangler types, drizzle
// migrations, the dashboard's API types and build, the bundled bins) differs from
// what the generators produce now.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const bin = (name: string) => resolve(root, "node_modules/.bin", name);
const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] });

run(bin("buf"), ["generate", "src/proto", "--template", "src/proto/buf.gen.yaml"]);
run(bin("wrangler"), ["types", "--strict-vars=false"]);
// drizzle-kit writes a new migration only when the schema changed.
run(bin("drizzle-kit"), ["generate", "--config", "drizzle.do.config.ts"]);
run(bin("drizzle-kit"), ["generate", "--config", "drizzle.d1.config.ts"]);
run(bin("drizzle-kit"), ["generate", "--config", "drizzle.code-mode.config.ts"]);
// drizzle-kit writes migrations.js unformatted; the committed one is formatted (npm run gen:db does the same).
run(bin("biome"), ["format", "--write", "migrations/code-mode/migrations.js"]);

// The package's bins, bundled into bin/ (compared by git status below).
run(process.execPath, [resolve(root, "scripts/build-bins.ts")]);
// The dashboard's types of the admin API, from its OpenAPI document (compared by git status below).
run(process.execPath, [resolve(root, "scripts/gen-api-client.ts")]);

const problems: string[] = [];

// The dashboard is built into a temp dir and compared file by file with dashboard/dist.
const dist = resolve(root, "dashboard/dist");
const fresh = mkdtempSync(join(tmpdir(), "byok-dashboard-"));
try {
  run(bin("vite"), ["build", "--config", "dashboard/vite.config.ts", "--outDir", fresh, "--emptyOutDir"]);
  const built = listFiles(fresh);
  const committed = listFiles(dist);
  for (const file of new Set([...built, ...committed])) {
    if (!built.includes(file)) problems.push(`dashboard/dist/${file}: not produced by the build`);
    else if (!committed.includes(file)) problems.push(`dashboard/dist/${file}: missing`);
    else if (!readFileSync(join(fresh, file)).equals(readFileSync(join(dist, file)))) problems.push(`dashboard/dist/${file}: differs`);
  }
} finally {
  rmSync(fresh, { recursive: true, force: true });
}
if (problems.length > 0) problems.push("(run npm run build:dashboard)");

const status = execFileSync(
  "git",
  [
    "status",
    "--porcelain",
    "--",
    "src/proto/gen",
    "worker-configuration.d.ts",
    "migrations",
    "dashboard/src/api/schema.d.ts",
    "dashboard/dist",
    "bin",
  ],
  { cwd: root },
).toString();
if (status.trim() !== "") problems.push(status.trimEnd());

if (problems.length > 0) {
  console.error(
    `Generated code is stale; run npm run gen:proto, npm run types, npm run gen:db, npm run gen:api, npm run build:dashboard, npm run build:bins and commit:\n${problems.join("\n")}`,
  );
  process.exit(1);
}
console.log("generated code is up to date");

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}
