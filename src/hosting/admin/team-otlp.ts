// A team's own OTLP collector in its settings (docs/telemetry.md#export): `otlp: {endpoint,
// headers}` in PATCH /api/v1/teams/{id}, replacing the whole setting; null removes it. The
// endpoint follows the outbound rules of a credential's base_url, and may hold no user info (a
// secret goes in a header); header values are sealed under the team's data key, and only
// their names are ever shown.
import { z } from "@hono/zod-openapi";
import { checkCustomHeaders } from "../../provider/upstream-headers.ts";
import { checkUpstreamUrl } from "../../provider/upstream-url.ts";
import { teamOtlpOwner } from "../config/telemetry-targets.ts";
import type { KekEnv } from "../keys/kek.ts";
import { headerNames, NO_HEADERS, sealHeaders } from "../keys/sealed-headers.ts";
import { teamDataKey } from "../keys/team-data-key.ts";
import type { D1Db } from "../store/db.ts";
import type { TeamPatch, TeamRow } from "../store/team-rows.ts";
import { invalidField } from "./admin-errors.ts";
import { Headers } from "./credential-routes.ts";

export const OtlpSetting = z
  .strictObject({
    endpoint: z.string().trim().min(1).max(2048).openapi({
      description: "The collector's base URL; traces go to <endpoint>/v1/traces (OTLP/HTTP, protobuf)",
      example: "https://api.honeycomb.io",
    }),
    headers: Headers.optional().openapi({
      description: "Headers of every export (an API key, a dataset); their values are stored encrypted and never shown again",
      example: { "x-honeycomb-team": "…" },
    }),
  })
  .nullable()
  .openapi({ description: "The team's own OTLP collector for its runs' traces (docs/telemetry.md); null: none" });

export const OtlpShown = z
  .object({ endpoint: z.string(), header_names: z.array(z.string()) })
  .nullable()
  .openapi({
    description:
      "The team's OTLP collector: its endpoint and the names of its headers (shown to its admins and the operator; null for members); null: none",
  });

/** The row fields of a setting, checked and sealed; throws invalid_argument naming the field that is wrong. */
export async function otlpPatch(
  env: KekEnv & { BYOK_ALLOW_PRIVATE_UPSTREAMS?: string },
  db: D1Db,
  teamId: string,
  setting: z.infer<typeof OtlpSetting>,
): Promise<TeamPatch> {
  if (setting === null) return { otlpEndpoint: null, otlpSealedHeaders: null, otlpHeaderNamesJson: null };
  const urlProblem = checkUpstreamUrl(setting.endpoint, env.BYOK_ALLOW_PRIVATE_UPSTREAMS === "true");
  if (urlProblem) throw invalidField("body.otlp.endpoint", urlProblem);
  const url = new URL(setting.endpoint);
  if (url.username || url.password) throw invalidField("body.otlp.endpoint", "put credentials in a header, not in the URL");
  const headerProblem = setting.headers ? checkCustomHeaders(setting.headers, { keys: true }) : undefined;
  if (headerProblem) throw invalidField("body.otlp.headers", headerProblem.replace(/^headers: /, ""));
  const endpoint = setting.endpoint.replace(/\/+$/, "");
  if (!setting.headers || Object.keys(setting.headers).length === 0) {
    return { otlpEndpoint: endpoint, otlpSealedHeaders: NO_HEADERS.sealedHeaders, otlpHeaderNamesJson: NO_HEADERS.headerNamesJson };
  }
  const key = await teamDataKey(env, db, teamId);
  const sealed = await sealHeaders(key.dataKey, teamOtlpOwner(teamId), setting.headers);
  return { otlpEndpoint: endpoint, otlpSealedHeaders: sealed.sealedHeaders, otlpHeaderNamesJson: sealed.headerNamesJson };
}

export function otlpJson(team: TeamRow): z.infer<typeof OtlpShown> {
  if (!team.otlpEndpoint) return null;
  return { endpoint: team.otlpEndpoint, header_names: headerNames({ headerNamesJson: team.otlpHeaderNamesJson, headersJson: null }) };
}
