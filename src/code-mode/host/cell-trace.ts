// A standalone code-mode session's cells as spans (docs/telemetry.md#code-mode-sessions). The
// Codex CLI runs its own agent loop, so no run of ours is around a cell: each cell is an
// `execute_tool exec` span of its own (a RunTrace of one span), a root in its session's trace,
// sent to the principal's team's and the deployment's collectors after the cell's isolate stopped.
import { ATTR_USER_ID } from "@opentelemetry/semantic-conventions/incubating";
import type { OtlpTarget } from "../../telemetry/otlp-export.ts";
import { RunTrace } from "../../telemetry/run-trace.ts";
import { sendTrace } from "../../telemetry/send-trace.ts";
import { toolAttributes, toolSpanName } from "../../telemetry/tool-spans.ts";

export interface StoppedCell {
  sessionId: string;
  cellId: string;
  principal: string;
  teamId: string | undefined;
  /** When its isolate stopped (epoch ms), and how long it ran. */
  stoppedAtMs: number;
  wallMs: number;
}

/** Sends the cell's span to `targets`; never rejects. */
export function traceCell(cell: StoppedCell, targets: readonly OtlpTarget[]): Promise<void> {
  const attributes = {
    ...toolAttributes("exec", cell.cellId, cell.sessionId),
    [ATTR_USER_ID]: cell.principal,
    ...(cell.teamId && { "byok.team.id": cell.teamId }),
    "byok.code_mode.session.id": cell.sessionId,
  };
  const startMs = cell.stoppedAtMs - cell.wallMs;
  const trace = new RunTrace(toolSpanName("exec"), attributes, { kind: "session", sessionId: cell.sessionId }, { startMs });
  trace.root.end(cell.stoppedAtMs);
  return sendTrace(trace, targets);
}
