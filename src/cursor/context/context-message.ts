// The request context in the stored history (docs/request-context.md): a user
// message keyed `request-context:<digest>:<n>`, appended only when the rendered
// context differs from the latest one on the live branch. Nothing earlier is
// ever rewritten, so an unchanged context changes no bytes of the prompt.
import type { RequestContext } from "../../proto/gen/agent/v1/agent_pb.ts";
import { toHex } from "../../core/bytes.ts";
import type { NewMessage } from "../store/conversation-store.ts";
import { renderRequestContext } from "./render.ts";

export const REQUEST_CONTEXT_KEY_PREFIX = "request-context:";

/** The latest context message of the live history: its digest, and the `n` the next one takes (for unique keys). */
export interface ContextMark {
  digest: string | undefined;
  next: number;
}

/**
 * `next` is one more than the highest `n` of the history's context keys, not their count:
 * compaction copies the latest context message with its key, so a count would start again
 * below that key's `n` and a later key could equal it (and be skipped as already stored).
 */
export function latestContext(history: readonly { messageKey: string | null }[]): ContextMark {
  let mark: ContextMark = { digest: undefined, next: 0 };
  for (const { messageKey } of history) {
    if (!messageKey?.startsWith(REQUEST_CONTEXT_KEY_PREFIX)) continue;
    const [digest, n] = messageKey.slice(REQUEST_CONTEXT_KEY_PREFIX.length).split(":");
    mark = { digest, next: Math.max(mark.next, (Number.parseInt(n ?? "", 10) || 0) + 1) };
  }
  return mark;
}

/** The message to append for `context`, if it says something new; and the mark after it. */
export async function contextEntry(
  mark: ContextMark,
  context: RequestContext | undefined,
  now: Date,
): Promise<{ item?: NewMessage; mark: ContextMark }> {
  const text = context && renderRequestContext(context, now);
  if (!text) return { mark };
  const digest = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))).slice(0, 16);
  if (digest === mark.digest) return { mark };
  // `n` keeps keys unique when an earlier context comes back (A, B, A).
  const item = { message: { role: "user" as const, content: text }, messageKey: `${REQUEST_CONTEXT_KEY_PREFIX}${digest}:${mark.next}` };
  return { item, mark: { digest, next: mark.next + 1 } };
}
