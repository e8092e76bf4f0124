// One object per hosted user: the single point that admits their runs against
// requests_per_minute and max_concurrent_runs (rules: src/hosting/limits/user-window.ts).
// Each call is synchronous inside the object, so two admissions cannot interleave.
import { DurableObject } from "cloudflare:workers";
import { limitsNow } from "../hosting/limits/clock.ts";
import { refusalOf } from "../hosting/limits/refusal.ts";
import {
  admit,
  closeSession,
  emptyWindow,
  openSession,
  release,
  renew,
  renewSession,
  type UserLimits,
  type UserWindow,
} from "../hosting/limits/user-window.ts";

const WINDOW_KEY = "window";

export class UserLimiterObject extends DurableObject<Env> {
  /** The refusal's message when a limit is reached (an error's class does not cross RPC), else null. */
  admit(runId: string, limits: UserLimits, replaces?: string): string | null {
    return refusalOf(() => this.#save(admit(this.#load(), limits, runId, limitsNow(), replaces)));
  }

  renew(runId: string): void {
    this.#save(renew(this.#load(), runId, limitsNow()));
  }

  release(runId: string): void {
    this.#save(release(this.#load(), runId, limitsNow()));
  }

  /** A code-mode session opens: the refusal's message over the cap, else null. */
  openSession(sessionId: string): string | null {
    return refusalOf(() => this.#save(openSession(this.#load(), sessionId, limitsNow())));
  }

  renewSession(sessionId: string): void {
    this.#save(renewSession(this.#load(), sessionId, limitsNow()));
  }

  closeSession(sessionId: string): void {
    this.#save(closeSession(this.#load(), sessionId, limitsNow()));
  }

  #load(): UserWindow {
    return this.ctx.storage.kv.get<UserWindow>(WINDOW_KEY) ?? emptyWindow();
  }

  #save(window: UserWindow): void {
    this.ctx.storage.kv.put(WINDOW_KEY, window);
  }
}
