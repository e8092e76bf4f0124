// The team's monthly token budget and how much of it is used: the figures the
// budget refusals use (GET /teams/{id}/budget, docs/hosting.md#limits), as a
// <meter> with the same numbers in words.
import { useEffect, useState } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import { formatNumber } from "../format.ts";
import type { Budget } from "../types.ts";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { budgetText } from "./numbers.ts";

/** `version` changes when the budget was edited, to read it again. */
export function BudgetMeter({ api, teamId, version }: { api: Api; teamId: string; version: number }) {
  const [budget, setBudget] = useState<Budget>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    setError(undefined);
    answer(api.GET("/api/v1/teams/{team_id}/budget", { params: { path: { team_id: teamId } } })).then(
      (b) => live && setBudget(b),
      (e: unknown) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [api, teamId, version]);

  if (error) return <ErrorNotice>Could not load the budget: {error}</ErrorNotice>;
  if (!budget) return <StatusNotice>Loading the budget…</StatusNotice>;
  const limit = budget.monthly_token_budget;
  const text = budgetText(budget.used_tokens, limit, (n) => formatNumber(n));
  return (
    <div class="budget">
      <p class="budget-label" id="budget-label">
        Used in {budget.month} (UTC)
      </p>
      {limit !== null && (
        <meter
          aria-labelledby="budget-label"
          aria-describedby="budget-text"
          min={0}
          max={Math.max(limit, 1)}
          low={limit * 0.75}
          high={limit * 0.9}
          optimum={0}
          value={Math.min(budget.used_tokens, Math.max(limit, 1))}
        >
          {text}
        </meter>
      )}
      <p id="budget-text" class="budget-text">
        {text}
        {budget.reserved_tokens > 0 && `; ${formatNumber(budget.reserved_tokens)} reserved by calls in progress`}
        {budget.remaining_tokens !== null && `; ${formatNumber(budget.remaining_tokens)} left`}.
      </p>
    </div>
  );
}
