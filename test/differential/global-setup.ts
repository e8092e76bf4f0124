// The differential suite's targets (docs/code-mode.md#differential-suite),
// started once for the `code-mode` project: the reference codex-code-mode-host
// from the cache that `npm run codex:fetch` fills (skipped, with one line, when
// the cache is empty), and byok-edge in a hermetic `wrangler dev`.
// CODE_MODE_TARGETS=reference (or byok-edge) runs one side only.
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { type EdgeDev, startEdgeDev } from "./support/edge-dev.ts";
import { findReferenceBinaries } from "../../scripts/codex-cache.ts";
import { type ReferenceHost, startReferenceHost } from "./support/reference-host.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The reference host's URL, or "" when its target is skipped. */
    codeModeReferenceUrl: string;
    /** byok-edge's URL under `wrangler dev`, or "" when its target is skipped. */
    codeModeEdgeUrl: string;
    codeModeEdgeToken: string;
  }
}

function wanted(target: "reference" | "byok-edge"): boolean {
  const list = process.env.CODE_MODE_TARGETS;
  return !list || list.split(",").includes(target);
}

export default async function setup(project: TestProject) {
  const stops: (() => Promise<void>)[] = [];
  const teardown = async () => {
    await Promise.allSettled(stops.map((stop) => stop()));
  };
  try {
    let reference: ReferenceHost | undefined;
    const binaries = findReferenceBinaries();
    if (wanted("reference")) {
      if (binaries) {
        reference = await startReferenceHost(binaries.host);
        stops.push(() => reference!.stop());
      } else {
        console.log("code-mode: the reference target is skipped: no codex-code-mode-host in .cache/codex (run `npm run codex:fetch`)");
      }
    }
    const token = randomBytes(24).toString("base64url");
    let edge: EdgeDev | undefined;
    if (wanted("byok-edge")) {
      edge = await startEdgeDev({ BYOK_TOKEN: token });
      stops.push(() => edge!.stop());
    }
    project.provide("codeModeReferenceUrl", reference?.baseUrl ?? "");
    project.provide("codeModeEdgeUrl", edge?.baseUrl ?? "");
    project.provide("codeModeEdgeToken", token);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
