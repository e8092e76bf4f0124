// The names the pages use for the admin API's shapes, each taken from the declarations
// generated from its OpenAPI document (api/schema.d.ts, `npm run gen:api`;
// docs/dashboard.md#the-api-client): nothing here restates a field. Type imports only, so
// the pure modules built on these shapes (usage/rows.ts) are unit-tested in Node.
import type { Client } from "openapi-fetch";
import type { components, paths } from "./api/schema.d.ts";

type Schemas = components["schemas"];

/** The client of the admin API: its paths, parameters, bodies and answers (api.ts makes one per token and re-exports this). */
export type Api = Client<paths>;

export type Me = Schemas["Me"];

/** What every page gets from the shell. */
export interface PageProps {
  api: Api;
  me: Me;
}

export type Credential = Schemas["Credential"];
export type Overview = Schemas["Overview"];
export type Model = Schemas["Model"];
export type ConfiguredModel = Schemas["ConfiguredModel"];
export type CreateModel = Schemas["CreateModel"];
export type ModelTest = Schemas["ModelTest"];
export type Scope = Model["scope"];
export type ProviderKind = Credential["provider"];
export type Token = Schemas["Token"];
export type IssuedToken = Schemas["IssuedToken"];
export type Team = Schemas["Team"];
export type User = Schemas["User"];
/** GET /teams/{id}/budget: the figures the budget refusals use. */
export type Budget = Schemas["Budget"];

// GET /usage (docs/hosting.md#usage-api).
export type UsageAnswer = Schemas["Usage"];
export type UsageRow = Schemas["UsageRow"];
/** A row's figures, without what it is grouped by. */
export type UsageFigures = Pick<
  UsageRow,
  | "requests"
  | "input_tokens"
  | "output_tokens"
  | "cache_read_tokens"
  | "cache_write_tokens"
  | "reasoning_tokens"
  | "cost_usd"
  | "cells"
  | "cell_wall_ms"
>;

// GET /runs and /conversations: status, timings and token counts only; the API holds no prompt or response text.
export type Run = Schemas["Run"];
export type ProviderCall = Schemas["ProviderCall"];
export type Conversation = Schemas["Conversation"];

// GET /audit (docs/hosting.md#audit-log): who changed what; never a secret.
export type AuditEntry = Schemas["AuditEntry"];
export type AuditQuery = NonNullable<paths["/api/v1/audit"]["get"]["parameters"]["query"]>;
export type AuditAction = NonNullable<AuditQuery["action"]>;
