// A per-isolate rolling-window counter by key: at most `limit` events in any `windowMs`.
// Good for a courtesy limit (model tests); a limit that must hold across isolates needs shared state.

export class SlidingWindow {
  readonly #events = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Records an event and answers 0, or answers how long until one is allowed (recording nothing). */
  take(key: string, nowMs: number): number {
    const recent = (this.#events.get(key) ?? []).filter((t) => t > nowMs - this.windowMs);
    if (recent.length >= this.limit) {
      this.#events.set(key, recent);
      return recent[0]! + this.windowMs - nowMs;
    }
    recent.push(nowMs);
    this.#events.set(key, recent);
    // Keys whose events have all aged out go, so the map stays as small as the set of recent callers.
    if (this.#events.size > 10_000) {
      for (const [k, times] of this.#events) if (times.every((t) => t <= nowMs - this.windowMs)) this.#events.delete(k);
    }
    return 0;
  }
}
