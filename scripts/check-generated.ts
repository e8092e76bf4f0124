// Fails when committed generated code (protobuf, wrangler types, drizzle
// migrations) differs from what the generators produce now.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";

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

const status = execFileSync("git", ["status", "--porcelain", "--", "src/proto/gen", "worker-configuration.d.ts", "migrations"], {
  cwd: root,
}).toString();
if (status.trim() !== "") {
  console.error(`Generated code is stale; run npm run gen:proto, npm run types, npm run gen:db and commit:\n${status}`);
  process.exit(1);
}
console.log("generated code is up to date");
