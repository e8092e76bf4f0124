// A limit's refusal crosses Durable Object RPC as its message (an error's class
// does not survive it) and becomes `resource_exhausted` again on the caller's side.
import { AppError, Code } from "../../core/errors.ts";

/** Runs `step`; the message of a `resource_exhausted` it throws, else null. */
export function refusalOf(step: () => void): string | null {
  try {
    step();
    return null;
  } catch (err) {
    if (err instanceof AppError && err.code === Code.ResourceExhausted) return err.message;
    throw err;
  }
}

export function refused(message: string | null): void {
  if (message !== null) throw new AppError("resource_exhausted", message);
}
