// One Durable Object per code-mode session (docs/code-mode.md). Placeholder
// until the session host lands: every call is refused as unimplemented.
import { DurableObject } from "cloudflare:workers";
import type { AppEnv } from "../env.ts";

export class CodeModeSessionObject extends DurableObject<AppEnv> {
  override async fetch(): Promise<Response> {
    return new Response("code mode is not available yet", { status: 501 });
  }
}
