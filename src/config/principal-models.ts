// The models one principal may use: what Cursor's model list shows it and the
// only ones its runs may name. "local" has BYOK_MODELS; a hosted user has their
// own and their team's stored models (docs/hosting.md#seams: the models API
// fills that set; until it lands a hosted user has none).
import { LOCAL_PRINCIPAL_ID } from "../auth/principal.ts";
import { type ModelCatalog, modelCatalogFromEnv } from "./models.ts";

const NO_MODELS: ModelCatalog = { models: [], problems: new Map() };

export function modelCatalogFor(env: { BYOK_MODELS?: string; BYOK_ALLOW_PRIVATE_UPSTREAMS?: string }, principalId: string): ModelCatalog {
  const given = testCatalogs.get(principalId);
  if (given) return given;
  return principalId === LOCAL_PRINCIPAL_ID ? modelCatalogFromEnv(env) : NO_MODELS;
}

/** Catalogues tests gave hosted users (setTestCatalog). */
const testCatalogs = new Map<string, ModelCatalog>();

/**
 * @internal Tests give a hosted user a catalogue of their own (test/limits.test.ts), whatever
 * the models API stores; keep this first when the D1 catalogue lands.
 */
export function setTestCatalog(principalId: string, catalog: ModelCatalog): void {
  testCatalogs.set(principalId, catalog);
}
