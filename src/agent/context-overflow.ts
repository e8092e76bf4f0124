// Recognising a provider's refusal because the prompt does not fit its context window.
import { ProviderError } from "../provider/failure.ts";

/** A provider's refusal because the prompt is longer than its context window. */
export function isContextOverflow(err: unknown): boolean {
  return (
    err instanceof ProviderError &&
    err.kind === "request" &&
    /prompt is too long|context length|context window|maximum context|too many tokens|context_length_exceeded|input is too long/i.test(
      err.message,
    )
  );
}
