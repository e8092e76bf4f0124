// GET /metrics (docs/telemetry.md#metrics): the operator's token or METRICS_TOKEN, nothing else
// (figures of every team); a scrape reads D1 once.
import { AppError } from "../../core/errors.ts";
import { bearerToken, sameSecret } from "../auth/principal.ts";
import { d1 } from "../store/db.ts";
import { metricsFigures } from "../store/metrics-rows.ts";
import { prometheusText } from "./prometheus.ts";

export async function metricsResponse(
  request: Request,
  env: { DB: D1Database; ADMIN_TOKEN?: string; METRICS_TOKEN?: string },
): Promise<Response> {
  if (!env.ADMIN_TOKEN && !env.METRICS_TOKEN) {
    throw new AppError("unimplemented", "GET /metrics needs ADMIN_TOKEN or METRICS_TOKEN to be set (docs/telemetry.md#metrics)");
  }
  const token = bearerToken(request);
  const allowed = token !== undefined && ((await sameSecret(token, env.ADMIN_TOKEN)) || (await sameSecret(token, env.METRICS_TOKEN)));
  if (!allowed) throw new AppError("unauthenticated", "GET /metrics needs the operator's token or METRICS_TOKEN as a bearer token");
  const text = prometheusText(await metricsFigures(d1(env.DB), Date.now()));
  return new Response(text, { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" } });
}
