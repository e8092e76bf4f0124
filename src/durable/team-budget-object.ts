// One object per team: the single point that holds the month's token counter and
// the reservations of calls in flight (rules: src/hosting/limits/team-month.ts). A new
// month starts from what the D1 ledger already holds for it, then counts each call.
import { DurableObject } from "cloudflare:workers";
import { limitsNow } from "../hosting/limits/clock.ts";
import { refusalOf } from "../hosting/limits/refusal.ts";
import { monthDays, monthOf, renewReservation, reservedTokens, reserve, settle, type TeamMonth } from "../hosting/limits/team-month.ts";
import { d1 } from "../hosting/store/db.ts";
import { teamTokensBetween } from "../hosting/store/limit-rows.ts";

const MONTH_KEY = "month";

export class TeamBudgetObject extends DurableObject<Env> {
  /** The month being read from the ledger, shared by every call that needs it meanwhile. */
  #opening: Promise<void> | undefined;

  /** Reserves tokens for one call; the refusal's message when the budget is used up, else null. */
  async reserve(teamId: string, budget: number, callId: string, estimate: number): Promise<string | null> {
    await this.#open(teamId);
    // No await from here on: the check and the reservation are one step.
    const nowMs = limitsNow();
    return refusalOf(() => this.#save(reserve(this.#load(nowMs), budget, callId, estimate, nowMs)));
  }

  /** A call's actual input + output tokens replace its reservation. */
  async settle(teamId: string, callId: string, tokens: number): Promise<void> {
    await this.#open(teamId);
    const nowMs = limitsNow();
    this.#save(settle(this.#load(nowMs), callId, tokens, nowMs));
  }

  /** A call still streaming keeps its reservation (docs/hosting.md#limits). */
  async renew(teamId: string, callId: string): Promise<void> {
    await this.#open(teamId);
    const nowMs = limitsNow();
    this.#save(renewReservation(this.#load(nowMs), callId, nowMs));
  }

  /** The month's figures the refusals use: tokens counted and tokens reserved by calls in flight. */
  async figures(teamId: string): Promise<{ month: string; used: number; reserved: number }> {
    await this.#open(teamId);
    const nowMs = limitsNow();
    const state = this.#load(nowMs);
    return { month: state.month, used: state.used, reserved: reservedTokens(state, nowMs) };
  }

  async #open(teamId: string): Promise<void> {
    const month = monthOf(limitsNow());
    if (this.ctx.storage.kv.get<TeamMonth>(MONTH_KEY)?.month === month) return;
    this.#opening ??= (async () => {
      const { from, until } = monthDays(month);
      const used = await teamTokensBetween(d1(this.env.DB), teamId, from, until);
      if (this.ctx.storage.kv.get<TeamMonth>(MONTH_KEY)?.month !== month) this.#save({ month, used, reservations: {} });
    })().finally(() => {
      this.#opening = undefined;
    });
    await this.#opening;
  }

  #load(nowMs: number): TeamMonth {
    const state = this.ctx.storage.kv.get<TeamMonth>(MONTH_KEY);
    // A month that ended while the ledger was read starts empty; the next call re-reads it.
    return state?.month === monthOf(nowMs) ? state : { month: monthOf(nowMs), used: 0, reservations: {} };
  }

  #save(state: TeamMonth): void {
    this.ctx.storage.kv.put(MONTH_KEY, state);
  }
}
