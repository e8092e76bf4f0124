// A standalone code-mode session's cells as spans (docs/telemetry.md#code-mode-sessions). The
// Codex CLI runs its own agent loop, so no run of ours is around a cell: each cell is an
// `execute_tool exec` span of its own, in one trace per session (its id derived from the
// session's), sent to the principal's team's and the deployment's collectors once the cell's
// isolate has stopped, like a run's spans after its end-stream.
import { ATTR_USER_ID } from "@opentelemetry/semantic-conventions/incubating";
import type { OtlpTarget } from "../../telemetry/otlp-export.ts";
import { exportSpans } from "../../telemetry/otlp-export.ts";
import { RunTrace } from "../../telemetry/run-trace.ts";
import { toolAttributes, toolSpanName } from "../../telemetry/tool-spans.ts";

export interface StoppedCell {
  sessionId: string;
  cellId: string;
  principal: string;
  teamId: string | undefined;
  wallMs: number;
}

/** Sends the cell's span to `targets`; never rejects (a trace is never worth a failure). */
export async function traceCell(cell: StoppedCell, targets: readonly OtlpTarget[]): Promise<void> {
  if (targets.length === 0) return;
  try {
    const attributes = {
      ...toolAttributes("exec", cell.cellId, cell.sessionId),
      [ATTR_USER_ID]: cell.principal,
      ...(cell.teamId && { "byok.team.id": cell.teamId }),
      "byok.code_mode.session.id": cell.sessionId,
    };
    const trace = new RunTrace(
      toolSpanName("exec"),
      attributes,
      { kind: "root", requestId: `code-mode-session:${cell.sessionId}` },
      {
        startMs: Date.now() - cell.wallMs,
      },
    );
    await exportSpans(trace.finish(), targets);
  } catch {
    // exportSpans does not throw; making the span could, and a trace is never worth a failure.
  }
}
