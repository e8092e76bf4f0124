// Where `npm run codex:fetch` (scripts/fetch-codex.ts) keeps the reference
// binaries of the differential suite (docs/code-mode.md#differential-suite).
// The Codex version is pinned here and only here.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/** The `@openai/codex` release whose code-mode host is the reference. */
const CODEX_VERSION = "0.169.0";
/** Its Linux x64 platform package: the one that ships the musl binaries. */
export const CODEX_PACKAGE = `@openai/codex@${CODEX_VERSION}-linux-x64`;
/** Inside the package tarball. */
export const PACKAGE_BIN_DIR = "package/vendor/x86_64-unknown-linux-musl/bin";
export const EXECUTABLES = ["codex-code-mode-host", "codex"] as const;

const PROJECT_ROOT = resolve(import.meta.dirname, "..");
/** Git-ignored (`.cache/`). */
export const CACHE_DIR = join(PROJECT_ROOT, ".cache/codex", CODEX_VERSION);

export interface ReferenceBinaries {
  host: string;
  codex: string;
}

export function referenceBinaryPaths(): ReferenceBinaries {
  return { host: join(CACHE_DIR, "bin", "codex-code-mode-host"), codex: join(CACHE_DIR, "bin", "codex") };
}

/** The fetched binaries, or undefined when `npm run codex:fetch` has not run. */
export function findReferenceBinaries(): ReferenceBinaries | undefined {
  const paths = referenceBinaryPaths();
  return existsSync(paths.host) && existsSync(paths.codex) ? paths : undefined;
}
