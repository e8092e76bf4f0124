// When models go (deleted, or with their credential), the models that named them stop naming
// them, in the same batch: a fallback list or a role that names a model nobody can see would
// be refused on the next edit of the model that holds it (docs/providers.md#fallbacks).
import type { BatchItem } from "drizzle-orm/batch";
import { type SQL, sql } from "drizzle-orm";
import type { D1Db } from "./db.ts";
import { models } from "./schema/providers.ts";

/** Statements that drop the model ids `gone` (a parenthesized subquery or list) from every fallback list and role. */
export function forgetModels(db: D1Db, gone: SQL): [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]] {
  return [
    db
      .update(models)
      .set({
        fallbacksJson: sql`(SELECT CASE WHEN count(*) = 0 THEN NULL ELSE json_group_array(value) END
          FROM json_each(${models.fallbacksJson}) WHERE value NOT IN ${gone})`,
      })
      .where(sql`${models.fallbacksJson} IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(${models.fallbacksJson}) WHERE value IN ${gone})`),
    db.update(models).set({ compactionModelId: null }).where(sql`${models.compactionModelId} IN ${gone}`),
    db.update(models).set({ subagentModelId: null }).where(sql`${models.subagentModelId} IN ${gone}`),
    db.update(models).set({ imageModelId: null }).where(sql`${models.imageModelId} IN ${gone}`),
  ];
}
