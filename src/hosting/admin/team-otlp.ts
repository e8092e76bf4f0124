// A team's own OTLP collector in its settings (docs/telemetry.md#export): `otlp: {endpoint,
// headers}` in PATCH /api/v1/teams/{id}, replacing the whole setting; null removes it. The
// endpoint follows the outbound rules of a credential's base_url, and may hold no user info (a
// secret goes in a header); header values are sealed under the team's data key, and only
// their names are ever shown.
import { z } from "@hono/zod-openapi";
import { checkCustomHeaders } from "../../provider/upstream-headers.ts";
import { checkUpstreamUrl } from "../../provider/upstream-url.ts";
import { teamOtlpOwner } from "../config/telemetry-targets.ts";
import { headerNames, NO_HEADERS, sealHeaders } from "../keys/sealed-headers.ts";
import type { TeamDataKey } from "../keys/team-data-key.ts";
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

/** A setting checked, before anything is sealed; null removes it. */
export type CheckedOtlp = { endpoint: string; headers: Record<string, string> } | null;

/** Checks a setting; throws invalid_argument naming the field that is wrong. */
export function checkOtlp(env: { BYOK_ALLOW_PRIVATE_UPSTREAMS?: string }, setting: z.infer<typeof OtlpSetting>): CheckedOtlp {
  if (setting === null) return null;
  const urlProblem = checkUpstreamUrl(setting.endpoint, env.BYOK_ALLOW_PRIVATE_UPSTREAMS === "true");
  if (urlProblem) throw invalidField("body.otlp.endpoint", urlProblem);
  const url = new URL(setting.endpoint);
  if (url.username || url.password) throw invalidField("body.otlp.endpoint", "put credentials in a header, not in the URL");
  const headerProblem = setting.headers ? checkCustomHeaders(setting.headers, { keys: true }) : undefined;
  if (headerProblem) throw invalidField("body.otlp.headers", headerProblem.replace(/^headers: /, ""));
  return { endpoint: setting.endpoint.replace(/\/+$/, ""), headers: setting.headers ?? {} };
}

/** True when the setting has header values to seal under the team's data key. */
export function otlpNeedsKey(checked: CheckedOtlp): boolean {
  return checked !== null && Object.keys(checked.headers).length > 0;
}

/** The row fields of a checked setting; `key`: the team's data key, when it has headers to seal. */
export async function otlpPatch(teamId: string, checked: CheckedOtlp, key?: TeamDataKey): Promise<TeamPatch> {
  if (checked === null) return { otlpEndpoint: null, otlpSealedHeaders: null, otlpHeaderNamesJson: null };
  if (!otlpNeedsKey(checked)) {
    return { otlpEndpoint: checked.endpoint, otlpSealedHeaders: NO_HEADERS.sealedHeaders, otlpHeaderNamesJson: NO_HEADERS.headerNamesJson };
  }
  if (!key) throw new Error("otlpPatch: header values to seal need the team's data key");
  const sealed = await sealHeaders(key.dataKey, teamOtlpOwner(teamId), checked.headers);
  return { otlpEndpoint: checked.endpoint, otlpSealedHeaders: sealed.sealedHeaders, otlpHeaderNamesJson: sealed.headerNamesJson };
}

export function otlpJson(team: TeamRow): z.infer<typeof OtlpShown> {
  if (!team.otlpEndpoint) return null;
  return { endpoint: team.otlpEndpoint, header_names: headerNames({ headerNamesJson: team.otlpHeaderNamesJson, headersJson: null }) };
}
