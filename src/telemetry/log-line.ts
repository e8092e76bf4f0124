// Structured logs (docs/telemetry.md#logs): one JSON object per line, which Workers Logs (and
// `wrangler tail`) read field by field. Ids, names, statuses, timings and counts only: never a
// key, a token, a prompt or an answer. A line that cannot be written is dropped, never thrown.
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export function logLine(message: "request" | "run", fields: LogFields): void {
  try {
    console.log(JSON.stringify({ message, ...fields }));
  } catch {
    // A log line is never worth a failure.
  }
}
