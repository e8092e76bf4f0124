// Code mode's rows in a conversation object's SQLite (docs/code-mode.md#cursor-runs):
// the host generation with its live-cell count, and the cells' stored values. Beside
// ConversationStore, on the same database, so the conversation's tables stay in one place.
// A value too large for one row is kept in parts (src/cursor/store/chunked-values.ts).
import { and, eq } from "drizzle-orm";
import type { Db } from "./conversation-store.ts";
import { partsOwner, readText, textForRow, writeParts } from "./chunked-values.ts";
import { codeModeState, codeModeValues } from "./schema.ts";

export interface CodeModeGeneration {
  generation: number;
  /** The model has not yet been told that this generation replaced one with live cells. */
  replacedNoticePending: boolean;
}

export class CodeModeStore {
  constructor(
    readonly db: Db,
    readonly conversationId: string,
  ) {}

  /**
   * Opens code mode for this life of the object: when the previous life still had cells
   * live, they are gone now, so the generation moves on and the model is to be told once.
   */
  openGeneration(): CodeModeGeneration {
    return this.db.transaction((tx) => {
      const row = tx.select().from(codeModeState).where(eq(codeModeState.conversationId, this.conversationId)).get();
      const lost = (row?.liveCells ?? 0) > 0;
      const next = {
        generation: (row?.generation ?? 1) + (lost ? 1 : 0),
        liveCells: 0,
        replacedNoticePending: lost || (row?.replacedNoticePending ?? false),
        updatedAtMs: Date.now(),
      };
      tx.insert(codeModeState)
        .values({ conversationId: this.conversationId, ...next })
        .onConflictDoUpdate({ target: codeModeState.conversationId, set: next })
        .run();
      return { generation: next.generation, replacedNoticePending: next.replacedNoticePending };
    });
  }

  /** How many cells are live now; a restart that finds more than none bumps the generation. */
  setLiveCells(count: number): void {
    this.db
      .update(codeModeState)
      .set({ liveCells: count, updatedAtMs: Date.now() })
      .where(eq(codeModeState.conversationId, this.conversationId))
      .run();
  }

  /** The replaced-runtime notice was given. */
  clearReplacedNotice(): void {
    this.db
      .update(codeModeState)
      .set({ replacedNoticePending: false, updatedAtMs: Date.now() })
      .where(eq(codeModeState.conversationId, this.conversationId))
      .run();
  }

  values(): Record<string, unknown> {
    const rows = this.db.select().from(codeModeValues).where(eq(codeModeValues.conversationId, this.conversationId)).all();
    return Object.fromEntries(
      rows.map((row) => {
        const json = row.parts > 0 ? readText(this.db, this.#owner(row.key), row.parts) : row.valueJson;
        return [row.key, JSON.parse(json) as unknown];
      }),
    );
  }

  /** A cell's writes, in one transaction (a large value's parts included). */
  commitValues(writes: Record<string, unknown>): void {
    this.db.transaction((tx) => {
      for (const [key, value] of Object.entries(writes)) {
        const where = and(eq(codeModeValues.conversationId, this.conversationId), eq(codeModeValues.key, key));
        const before = tx.select({ parts: codeModeValues.parts }).from(codeModeValues).where(where).get();
        const valueJson = JSON.stringify(value) as string | undefined;
        if (valueJson === undefined) {
          tx.delete(codeModeValues).where(where).run();
          if (before && before.parts > 0) writeParts(tx, this.#owner(key), []);
          continue;
        }
        const stored = textForRow(valueJson);
        const set = { valueJson: stored.inline, parts: stored.parts.length };
        tx.insert(codeModeValues)
          .values({ conversationId: this.conversationId, key, ...set })
          .onConflictDoUpdate({ target: [codeModeValues.conversationId, codeModeValues.key], set })
          .run();
        if (stored.parts.length > 0 || (before && before.parts > 0)) writeParts(tx, this.#owner(key), stored.parts);
      }
    });
  }

  #owner(key: string): string {
    return partsOwner("code-mode-value", this.conversationId, key);
  }
}
