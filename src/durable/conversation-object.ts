// One Durable Object per (principal, conversation). Thin: it opens its SQLite, applies
// the migrations and hands every call to the conversation (src/cursor/session/conversation.ts).
import { DurableObject } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/durable-sqlite";
import { migrate } from "drizzle-orm/durable-sqlite/migrator";
import migrations from "../../migrations/do/migrations.js";
import type { AppEnv } from "../core/env.ts";
import { errorKind } from "../core/log-safe.ts";
import { Conversation } from "../cursor/session/conversation.ts";
import type { Subscription } from "../cursor/session/outbox.ts";
import type { AppendInput, AppendResult } from "../cursor/session/session.ts";
import { ConversationStore } from "../cursor/store/conversation-store.ts";

export class ConversationObject extends DurableObject<AppEnv> {
  readonly #conversation: Conversation;
  #initError: unknown;

  constructor(ctx: DurableObjectState, env: AppEnv) {
    super(ctx, env);
    const store = new ConversationStore(drizzle(ctx.storage, { logger: false }));
    this.#conversation = new Conversation(env, store, {
      waitUntil: (promise) => ctx.waitUntil(promise),
      setAlarm: (atMs) => (atMs === null ? ctx.storage.deleteAlarm() : ctx.storage.setAlarm(atMs)),
    });
    void ctx.blockConcurrencyWhile(async () => {
      // Errors are kept, not thrown: a throw here would break the input gate.
      try {
        await migrate(store.db, migrations);
        this.#conversation.recover();
      } catch (err) {
        this.#initError = err;
        console.error("byok-edge: conversation storage failed to open:", errorKind(err));
      }
    });
  }

  /** The RunSSE body of a request: replay, then live frames, then one end-stream. */
  subscribe(requestId: string): Subscription {
    this.#ready();
    return this.#conversation.subscribe(requestId);
  }

  /** The edge saw the RunSSE client go away. */
  unsubscribe(requestId: string, subscriptionId: string): void {
    this.#conversation.unsubscribe(requestId, subscriptionId);
  }

  append(input: AppendInput): Promise<AppendResult> {
    this.#ready();
    return this.#conversation.append(input);
  }

  /** @internal Bytes of out-of-order and parked appends held now (the tests check they are freed). */
  heldAppendBytes(): number {
    return this.#conversation.heldAppendBytes();
  }

  /** Finishes runs cut off by a restart without waiting for a visitor (docs/architecture.md#run-recovery). */
  override async alarm(): Promise<void> {
    this.#ready();
    await this.#conversation.onAlarm();
  }

  /** Cancels every run and closes every stream with `canceled`. */
  shutdown(): Promise<void> {
    return this.#conversation.shutdown();
  }

  /** Checked on every call, outside blockConcurrencyWhile (a throw inside it would break the input gate). */
  #ready(): void {
    // Reset the object so the next request opens storage afresh, instead of serving errors forever.
    if (this.#initError !== undefined) this.ctx.abort("conversation storage failed to open");
  }
}
