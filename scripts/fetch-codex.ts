// `npm run codex:fetch`: puts the reference Codex binaries (codex-code-mode-host
// and codex) into the git-ignored cache .cache/codex/<version>/bin, for the
// differential suite (docs/code-mode.md#differential-suite). The package is
// about 167 MB, so it is not a dependency: `npm pack` fetches the tarball, its
// digests are checked against the registry's, and only the two executables are
// kept. Idempotent: does nothing when they are already there.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, createReadStream, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { CACHE_DIR, CODEX_PACKAGE, EXECUTABLES, findReferenceBinaries, PACKAGE_BIN_DIR, referenceBinaryPaths } from "./codex-cache.ts";

function printPaths(): void {
  const paths = referenceBinaryPaths();
  console.log(`codex-code-mode-host: ${paths.host}`);
  console.log(`codex: ${paths.codex}`);
}

async function digest(file: string, algorithm: "sha1" | "sha512", encoding: "hex" | "base64"): Promise<string> {
  const hash = createHash(algorithm);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest(encoding);
}

const npm = (args: string[], cwd?: string) =>
  execFileSync("npm", args, { cwd, stdio: ["ignore", "pipe", "inherit"], maxBuffer: 16 * 1024 * 1024 }).toString();

if (findReferenceBinaries()) {
  printPaths();
} else if (process.platform !== "linux" || process.arch !== "x64") {
  console.log(`codex:fetch: the reference binaries are Linux x64 only; the differential suite's reference target is skipped here`);
} else {
  mkdirSync(CACHE_DIR, { recursive: true });
  const work = mkdtempSync(join(CACHE_DIR, "fetch-"));
  try {
    const dist = JSON.parse(npm(["view", CODEX_PACKAGE, "dist", "--json"])) as { integrity: string; shasum: string };
    const [packed] = JSON.parse(npm(["pack", CODEX_PACKAGE, "--json", "--pack-destination", work], work)) as { filename: string }[];
    if (!packed) throw new Error(`npm pack ${CODEX_PACKAGE} reported no file`);
    const tarball = join(work, packed.filename);
    const [algorithm, expected512] = dist.integrity.split("-", 2);
    if (algorithm !== "sha512") throw new Error(`unexpected integrity algorithm ${algorithm}`);
    const [got512, got1] = [await digest(tarball, "sha512", "base64"), await digest(tarball, "sha1", "hex")];
    if (got512 !== expected512 || got1 !== dist.shasum) {
      throw new Error(`${packed.filename}: digests differ from the registry's (sha512 ${got512}, sha1 ${got1})`);
    }
    execFileSync("tar", ["-xzf", tarball, "-C", work, ...EXECUTABLES.map((name) => `${PACKAGE_BIN_DIR}/${name}`)]);
    const bin = join(work, "bin");
    mkdirSync(bin);
    for (const name of EXECUTABLES) {
      renameSync(join(work, PACKAGE_BIN_DIR, name), join(bin, name));
      chmodSync(join(bin, name), 0o755);
    }
    // Last, and in one step: a half-done fetch never looks like a finished one.
    rmSync(join(CACHE_DIR, "bin"), { recursive: true, force: true });
    renameSync(bin, join(CACHE_DIR, "bin"));
    printPaths();
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
