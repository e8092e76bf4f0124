// A run's trace from its start to its export (docs/telemetry.md#traces): started only when the
// run's team or the deployment has a collector, finished with the run's totals, and sent after
// the run's end-stream, in the object's waitUntil, so no collector delays or fails a turn.
import { logLine } from "../../telemetry/log-line.ts";
import type { OtlpTarget } from "../../telemetry/otlp-export.ts";
import { sendTrace } from "../../telemetry/send-trace.ts";
import { RunTrace } from "../../telemetry/run-trace.ts";
import type { RunRecord } from "../../hosting/store/usage-rows.ts";
import type { Usage } from "../../provider/types.ts";
import { errorTypeOf, runAttributes, runSpanName, usageAttributes } from "../agent/run-spans.ts";
import type { RunPlan } from "./run-request.ts";
import type { RunSummary } from "./session.ts";

/** A trace for the run, or none when its spans would have nowhere to go. */
export function startRunTrace(runId: string, plan: RunPlan, targets: readonly OtlpTarget[]): RunTrace | undefined {
  if (targets.length === 0) return undefined;
  const run = {
    runId,
    requestId: plan.requestId,
    conversationId: plan.conversationId,
    principal: plan.principal,
    teamId: plan.teamId,
    model: plan.model,
    subagent: plan.subagent,
  };
  const parent = plan.parent ? { kind: "task" as const, ...plan.parent } : { kind: "root" as const, requestId: plan.requestId };
  return new RunTrace(runSpanName(run), runAttributes(run), parent);
}

/** Ends the run's span with what the run used and how it ended, and sends its spans; never rejects. */
export async function finishRunTrace(summary: RunSummary, targets: readonly OtlpTarget[]): Promise<void> {
  const trace = summary.trace;
  if (!trace) return;
  const { outcome } = summary;
  trace.root.set({ ...usageAttributes(outcome.usage), "byok.run.status": outcome.status });
  if (outcome.status !== "completed") trace.root.fail(outcome.status === "cancelled" ? "cancelled" : errorTypeOf(outcome.error, false));
  trace.root.end();
  await sendTrace(trace, targets);
}

/**
 * The run's log line (docs/telemetry.md#logs): who, which model, how it ended, how long, what it
 * counted; the request id and, when the run was traced, its trace's id, to find one from the other.
 */
export function logRunEnd(run: {
  runId: string;
  conversationId: string;
  model: string;
  owner: { id: string; teamId: string | null };
  status: string;
  usage: Usage;
  record: RunRecord | undefined;
  /** Set when the run was traced. */
  traceId: string | undefined;
}): void {
  const calls = run.record?.calls ?? [];
  const firstText = calls.find((c) => c.ttftMs !== null);
  logLine("run", {
    request_id: run.record?.requestId ?? null,
    ...(run.traceId && { trace_id: run.traceId }),
    run_id: run.runId,
    conversation_id: run.conversationId,
    principal_id: run.owner.id,
    team_id: run.owner.teamId,
    model: run.model,
    status: run.status,
    duration_ms: run.record ? Date.now() - run.record.startedAtMs : null,
    ttft_ms: firstText?.ttftMs ?? null,
    provider_calls: calls.length,
    input_tokens: run.usage.inputTokens,
    output_tokens: run.usage.outputTokens,
    cache_read_tokens: run.usage.cacheReadTokens,
  });
}
