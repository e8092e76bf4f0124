// Sending a trace once its work is done (docs/telemetry.md#cost-when-it-fails): a while after the
// end-stream (or a cell's stop), since making, serializing and sending the spans takes the
// isolate's one thread for a few milliseconds, which the last frames still need on their way out.
import { exportSpans, type OtlpTarget } from "./otlp-export.ts";
import type { RunTrace } from "./run-trace.ts";

/** How long after the traced work ended its spans are made and sent. */
const EXPORT_DELAY_MS = 50;

/** Makes the trace's spans and sends them to `targets`, EXPORT_DELAY_MS from now; never rejects. */
export async function sendTrace(trace: RunTrace, targets: readonly OtlpTarget[]): Promise<void> {
  if (targets.length === 0) return;
  await new Promise((resolve) => setTimeout(resolve, EXPORT_DELAY_MS));
  try {
    await exportSpans(trace.finish(), targets);
  } catch {
    // exportSpans does not throw; making a span could, and a trace is never worth a failure.
  }
}
