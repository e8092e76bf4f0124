// The engine's errors, each mapped to one status by the gRPC host
// (docs/code-mode.md#errors). Messages are Codex's own texts where Codex has one.

/** Refused calls once the session shut down (Codex's text). */
export const SHUTTING_DOWN = "code mode session is shutting down";

/** A Wait retired as cancelled (Codex's text; the host sends it as canceled). */
export const WAIT_CANCELLED = "code-mode wait was cancelled";

/** A call the cell model refuses, e.g. "exec cell 1 already has an active observer" (failed_precondition). */
export class CellRuntimeError extends Error {
  override name = "CellRuntimeError";
}

/** The session closed under a pending Execute or Wait (the host ends the stream or cancels the Wait). */
export class SessionClosedError extends Error {
  override name = "SessionClosedError";
  constructor(message = SHUTTING_DOWN) {
    super(message);
  }
}

/** A Wait retired by its cancel signal (CancelWait, or its caller went away). */
export class WaitCancelledError extends Error {
  override name = "WaitCancelledError";
  constructor(message = WAIT_CANCELLED) {
    super(message);
  }
}

/**
 * A Workers limit Codex does not have: a Durable Object may keep at most 10 Worker Loader
 * isolates busy, so a session runs at most MAX_RUNNING_CELLS cells at once (resource_exhausted).
 */
export class CellLimitError extends Error {
  override name = "CellLimitError";
}

export const MAX_RUNNING_CELLS = 10;

export function activeObserverMessage(cellId: string): string {
  return `exec cell ${cellId} already has an active observer`;
}

export function alreadyTerminatingMessage(cellId: string): string {
  return `exec cell ${cellId} is already terminating`;
}

export function notFoundMessage(cellId: string): string {
  return `exec cell ${cellId} not found`;
}

export function tooManyCellsMessage(): string {
  return `code mode session already runs ${MAX_RUNNING_CELLS} cells; wait for or terminate one first`;
}

/** A completed cell whose stored-value writes could not be kept (none of them were). */
export function storeFailedMessage(reason: string): string {
  return `Unable to store the cell's values: ${reason}`;
}

/** What a cell's pending tool call rejects with when the cell stops first. */
export const DELEGATE_CANCELLED = "code mode delegate request cancelled";

/** The result of a cell whose runtime ended without one. */
export const RUNTIME_ENDED = "exec runtime ended unexpectedly";
