// The session's SubscribeToToolCalls streams and the choice of one for each tool
// call: a subscription takes the tools its filters name (name and namespace
// exactly; no filter: every tool); among those that match, calls go round-robin
// in the order the subscriptions were opened (docs/code-mode.md#tool-calls).
import type { ToolName } from "../engine/engine-types.ts";
import type { ToolCall } from "../../proto/gen/codex/code_mode/v1/code_mode_pb.ts";
import { EventQueue } from "./event-queue.ts";

export const SUBSCRIPTION_FILTERS_MAX = 64;

export class Subscription {
  readonly calls = new EventQueue<ToolCall>();
  /** Invocations routed here that are not completed yet. */
  readonly pending = new Set<string>();
  readonly #filters: ToolName[];

  constructor(filters: ToolName[]) {
    this.#filters = filters;
  }

  matches(tool: ToolName): boolean {
    return this.#filters.length === 0 || this.#filters.some((f) => f.name === tool.name && f.namespace === tool.namespace);
  }
}

export class ToolSubscriptions {
  #open: Subscription[] = [];
  /** Where the next search for a matching subscription starts. */
  #cursor = 0;

  add(filters: ToolName[]): Subscription {
    const subscription = new Subscription(filters);
    this.#open.push(subscription);
    return subscription;
  }

  remove(subscription: Subscription): void {
    const index = this.#open.indexOf(subscription);
    if (index < 0) return;
    this.#open.splice(index, 1);
    if (index < this.#cursor) this.#cursor--;
    subscription.calls.close();
  }

  /** The next matching subscription, or undefined when none matches. */
  route(tool: ToolName): Subscription | undefined {
    const count = this.#open.length;
    for (let step = 0; step < count; step++) {
      const index = (this.#cursor + step) % count;
      const subscription = this.#open[index];
      if (subscription?.matches(tool)) {
        this.#cursor = (index + 1) % count;
        return subscription;
      }
    }
    return undefined;
  }

  /** The session ended: every stream ends with OK. */
  closeAll(): void {
    for (const subscription of this.#open) subscription.calls.close();
    this.#open = [];
    this.#cursor = 0;
  }
}
