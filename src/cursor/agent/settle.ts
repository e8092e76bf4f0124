// A run's outcome is decided here, once: what the run ended with (or threw), read
// against its cancellation, recorded in the store with its compare-and-set. The
// agent settles its own runs; the session settles a run that crashed past it.
import { type AppError, Code, codeName } from "../../core/errors.ts";
import { errorKind } from "../../core/log-safe.ts";
import type { Usage } from "../../provider/types.ts";
import type { ConversationStore } from "../store/conversation-store.ts";
import type { RequestChannel } from "./request-channel.ts";
import { runFailure } from "./run-errors.ts";

export type RunOutcome =
  | { status: "completed"; usage: Usage }
  | { status: "cancelled"; usage: Usage }
  | { status: "failed"; usage: Usage; error: AppError };

/** How the run's work ended, before it is read against the run's cancellation. */
export type RunEnding = { kind: "completed" } | { kind: "threw"; error: unknown };

export interface SettleDeps {
  store: ConversationStore;
  channel: RequestChannel;
}

export interface SettledRun {
  runId: string;
  modelName: string;
  signal: AbortSignal;
}

export function settleRun(deps: SettleDeps, run: SettledRun, ending: RunEnding): RunOutcome {
  // What every provider call of the run counted, whatever its end (docs/hosting.md#limits).
  const outcome = decide(run, ending, deps.store.runUsage(run.runId));
  // Every exec still running on the client is aborted before the stream ends.
  if (outcome.status !== "completed") deps.channel.abortOpenExecs({ includeDetached: true });
  if (outcome.status === "failed") {
    deps.store.finishRun(run.runId, "failed", {
      usage: outcome.usage,
      failureCode: codeName(outcome.error),
      failureMessage: outcome.error.rawMessage,
    });
  } else {
    deps.store.finishRun(run.runId, outcome.status, { usage: outcome.usage });
  }
  return outcome;
}

function decide(run: SettledRun, ending: RunEnding, usage: Usage): RunOutcome {
  // A turn that completed stays completed: its tail went out in one piece.
  if (ending.kind === "completed") return { status: "completed", usage };
  // Whatever a cancelled run threw on its way out, it was cancelled.
  if (run.signal.aborted) return { status: "cancelled", usage };
  const error = runFailure(ending.error, run.modelName);
  if (error.code === Code.Internal) console.error("byok-edge: run failed", run.runId, errorKind(error.cause));
  return { status: "failed", usage, error };
}
