// One router object per principal: maps a live request id to its conversation.
// Thin: its storage and alarm, and the router's logic in src/cursor/routes/request-router.ts.
import { DurableObject } from "cloudflare:workers";
import { type BindResult, RequestRouter, type ResolveOptions, type ResolveResult } from "../cursor/routes/request-router.ts";

export class RouterObject extends DurableObject<Env> {
  readonly #router = new RequestRouter(this.ctx.storage);

  /** Records request → conversation and wakes everyone waiting for it. */
  bind(requestId: string, conversationId: string): BindResult {
    return this.#router.bind(requestId, conversationId);
  }

  /** The conversation of a request, waiting up to `waitMs` for its binding. */
  resolve(requestId: string, options: ResolveOptions = {}): Promise<ResolveResult> {
    return this.#router.resolve(requestId, options);
  }

  /** The caller's client went away: its wait ends now (as a timeout) and frees its place. */
  stopWaiting(requestId: string, waitId: string): void {
    this.#router.stopWaiting(requestId, waitId);
  }

  /** @internal Calls waiting for a binding now (the tests check a departed client's is freed). */
  waitingCalls(): number {
    return this.#router.waitingCalls();
  }

  override alarm(): Promise<void> {
    return this.#router.prune();
  }
}
