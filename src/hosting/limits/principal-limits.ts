// The limits of one hosted user on every path that calls a provider
// (docs/hosting.md#limits): a run is admitted by the user's limiter object and
// holds a renewed lease until it ends; each provider call reserves tokens from
// the team's budget object first and settles them with what it counts, whatever its end.
// The single-user principal "local" has no limits.
import { teamBudgetName, userLimiterName } from "../../core/object-names.ts";
import { AppError } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import { inputTokenEstimate, maxOutputTokens } from "../../provider/metering.ts";
import type { CallTimings, ModelEvent, ModelRequest, Provider } from "../../provider/types.ts";
import { d1 } from "../store/db.ts";
import { type LimitsRow, limitsOfUser } from "../store/limit-rows.ts";
import { cachedLimits } from "./limits-cache.ts";
import { refused } from "./refusal.ts";
import { RESERVATION_MS } from "./team-month.ts";
import { LEASE_MS } from "./user-window.ts";

/** The bindings the limits use; the objects' types come with the generated Env. */
export type LimitsEnv = Pick<Env, "DB" | "USER_LIMITER" | "TEAM_BUDGET">;

/** A call that sends no output cap (an OpenAI-style model without max_output_tokens) reserves this many output tokens. */
const DEFAULT_OUTPUT_RESERVE = 4_096;

export class PrincipalLimits {
  readonly #renewals = new Map<string, ReturnType<typeof setInterval>>();

  constructor(
    readonly env: LimitsEnv,
    readonly userId: string,
    readonly teamId: string,
  ) {}

  /** Admits a run (or a model test); throws `resource_exhausted` over a limit. `replaces`: the run it cancels. */
  async admit(runId: string, replaces?: string): Promise<void> {
    const limits = await this.#limits();
    const stub = this.env.USER_LIMITER.getByName(userLimiterName(this.userId));
    refused(
      await unavailableOnFailure(() =>
        stub.admit(runId, { requestsPerMinute: limits.requestsPerMinute, maxConcurrentRuns: limits.maxConcurrentRuns }, replaces),
      ),
    );
    // Renewed four times per lease, so a slot frees only when its run is gone (a crash, a restart).
    const timer = setInterval(() => void stub.renew(runId).catch(logFailure), LEASE_MS / 4);
    this.#renewals.set(runId, timer);
  }

  /** The run ended (whichever way): its slot frees now. */
  async release(runId: string): Promise<void> {
    const timer = this.#renewals.get(runId);
    if (timer === undefined) return;
    clearInterval(timer);
    this.#renewals.delete(runId);
    await this.env.USER_LIMITER.getByName(userLimiterName(this.userId)).release(runId).catch(logFailure);
  }

  /** A run an earlier life of the object admitted and a restart cut off: its slot frees now, not when its lease runs out. */
  async releaseInterrupted(runId: string): Promise<void> {
    await this.env.USER_LIMITER.getByName(userLimiterName(this.userId)).release(runId).catch(logFailure);
  }

  /**
   * A code-mode session opens: refused (`resource_exhausted`) over the user's cap of open
   * sessions; the CPU its cells may each use when the team set one.
   */
  async openCodeModeSession(sessionId: string): Promise<{ cellCpuMs: number | null }> {
    const limits = await this.#limits();
    const stub = this.env.USER_LIMITER.getByName(userLimiterName(this.userId));
    refused(await unavailableOnFailure(() => stub.openSession(sessionId)));
    return { cellCpuMs: limits.codeModeCpuMs };
  }

  /** The session's lease is still forwarded: its slot stays held. */
  renewCodeModeSession(sessionId: string): void {
    void this.env.USER_LIMITER.getByName(userLimiterName(this.userId)).renewSession(sessionId).catch(logFailure);
  }

  async closeCodeModeSession(sessionId: string): Promise<void> {
    await this.env.USER_LIMITER.getByName(userLimiterName(this.userId)).closeSession(sessionId).catch(logFailure);
  }

  /** The provider, each call of which is checked against the team's budget and counted. */
  guard(provider: Provider): Provider {
    return { stream: (request, timings) => this.#budgeted(provider, request, timings) };
  }

  async *#budgeted(provider: Provider, request: ModelRequest, timings: CallTimings | undefined): AsyncIterable<ModelEvent> {
    const budget = (await this.#limits()).monthlyTokenBudget;
    const stub = this.env.TEAM_BUDGET.getByName(teamBudgetName(this.teamId));
    const callId = crypto.randomUUID();
    if (budget !== null) refused(await unavailableOnFailure(() => stub.reserve(this.teamId, budget, callId, reservationOf(request))));
    // The stream says what the call counts once it ends, whichever way; a call refused before 2xx counts 0.
    const measured = timings ?? {};
    // A call longer than a reservation's life keeps it, so others cannot start on tokens it still holds.
    const renewal = setInterval(() => void stub.renew(this.teamId, callId).catch(logFailure), RESERVATION_MS / 3);
    try {
      yield* provider.stream(request, measured);
    } finally {
      clearInterval(renewal);
      // Counted even without a budget, so one set later starts from the month's real figure.
      const counted = measured.counted?.usage;
      await stub.settle(this.teamId, callId, (counted?.inputTokens ?? 0) + (counted?.outputTokens ?? 0)).catch(logFailure);
    }
  }

  async #limits(): Promise<LimitsRow> {
    const row = await unavailableOnFailure(() => cachedLimits(this.userId, () => limitsOfUser(d1(this.env.DB), this.userId)));
    // A user removed meanwhile: their token stops working within 5 s; nothing more starts now.
    if (!row) throw new AppError("unauthenticated", "this user has been removed; their tokens no longer work");
    return row;
  }
}

/** The hosted user's limits; undefined for "local", which has none. */
export function limitsFor(env: LimitsEnv, principal: { id: string; teamId: string | null }): PrincipalLimits | undefined {
  return principal.teamId === null ? undefined : new PrincipalLimits(env, principal.id, principal.teamId);
}

/**
 * What a call holds while it runs: its input estimate plus the most it may answer
 * (docs/hosting.md#limits). Only what is left of a budget is ever reserved.
 */
function reservationOf(request: ModelRequest): number {
  return inputTokenEstimate(request.messages, request.tools) + (maxOutputTokens(request) ?? DEFAULT_OUTPUT_RESERVE);
}

async function unavailableOnFailure<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof AppError) throw err;
    console.error("byok-edge: limits could not be checked:", errorKind(err));
    throw new AppError("unavailable", "limits could not be checked; try again");
  }
}

function logFailure(err: unknown): void {
  console.error("byok-edge: a limit could not be updated:", errorKind(err));
}
