// Notifications sent on the lease and not yet acknowledged. Acknowledging one the
// host does not hold (unknown, already acknowledged) answers OK, as Codex does.

export class PendingNotifications {
  readonly #pending = new Map<string, () => void>();

  /** Resolves when the client acknowledges it, the cell no longer cares (signal) or the session ends. */
  wait(notificationId: string, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        this.#pending.delete(notificationId);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.#pending.set(notificationId, done);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  acknowledge(notificationId: string): void {
    this.#pending.get(notificationId)?.();
  }

  /** Notifications still awaiting their ack. */
  get size(): number {
    return this.#pending.size;
  }

  releaseAll(): void {
    for (const done of [...this.#pending.values()]) done();
  }
}
