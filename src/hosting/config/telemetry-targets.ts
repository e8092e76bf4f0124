// Where a run's traces go (docs/telemetry.md#export): the deployment's collector (OTLP_ENDPOINT,
// OTLP_HEADERS) and the team's own (`otlp` in its settings, its header values sealed under the
// team's data key and opened only when spans are sent). A team's setting is read from D1 and
// kept per isolate for less than 5 s, like its models, so a run's start pays no D1 round trip.
import { errorKind } from "../../core/log-safe.ts";
import { type OtlpTarget, parseOtlpHeaders } from "../../telemetry/otlp-export.ts";
import { unwrapDataKey } from "../keys/data-key.ts";
import type { KekEnv } from "../keys/kek.ts";
import { openHeaders } from "../keys/sealed-headers.ts";
import { keyThatSealed } from "../keys/team-data-key.ts";
import { d1 } from "../store/db.ts";
import { type TeamRow, teamById } from "../store/team-rows.ts";

interface TargetsEnv extends KekEnv {
  DB: D1Database;
  OTLP_ENDPOINT?: string;
  OTLP_HEADERS?: string;
}

const TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;
const teams = new Map<string, { target: Promise<OtlpTarget | undefined>; validUntilMs: number }>();

/** The collectors of a run of `teamId`'s (null: the single user, who has only the deployment's). */
export async function telemetryTargetsFor(env: TargetsEnv, teamId: string | null): Promise<OtlpTarget[]> {
  const own = teamId ? await teamTarget(env, teamId) : undefined;
  const deployment = deploymentTarget(env);
  return [...(deployment ? [deployment] : []), ...(own ? [own] : [])];
}

/** A team's setting changed here: this isolate reads it again at once, the others within 5 s. */
export function forgetTelemetryTargets(): void {
  teams.clear();
}

function deploymentTarget(env: TargetsEnv): OtlpTarget | undefined {
  const endpoint = env.OTLP_ENDPOINT?.trim();
  if (!endpoint) return undefined;
  const headers = parseOtlpHeaders(env.OTLP_HEADERS);
  return { label: "deployment", endpoint, headers: () => Promise.resolve(headers) };
}

function teamTarget(env: TargetsEnv, teamId: string): Promise<OtlpTarget | undefined> {
  const cached = teams.get(teamId);
  const now = Date.now();
  if (cached && now < cached.validUntilMs) return cached.target;
  const target = teamById(d1(env.DB), teamId).then(
    (team) => (team?.otlpEndpoint ? targetOf(env, team) : undefined),
    (err: unknown) => {
      // Traces are not worth failing a run for: this run goes without the team's collector.
      console.error("byok-edge: a team's telemetry setting could not be read:", errorKind(err));
      return undefined;
    },
  );
  teams.delete(teamId);
  teams.set(teamId, { target, validUntilMs: now + TTL_MS });
  while (teams.size > MAX_ENTRIES) teams.delete(teams.keys().next().value!);
  return target;
}

function targetOf(env: TargetsEnv, team: TeamRow): OtlpTarget {
  const sealed = team.otlpSealedHeaders;
  return {
    label: "team",
    endpoint: team.otlpEndpoint!,
    headers: async () => {
      if (!sealed || !team.wrappedDataKey) return {};
      const dataKey = await unwrapDataKey(env, team.id, team.wrappedDataKey);
      const previous = team.previousWrappedDataKey ? await unwrapDataKey(env, team.id, team.previousWrappedDataKey) : undefined;
      const key = keyThatSealed({ dataKey, wrapped: team.wrappedDataKey, ...(previous && { previous }) }, sealed);
      return openHeaders(key, teamOtlpOwner(team.id), sealed);
    },
  };
}

/** What a team's OTLP headers are sealed to: that team's setting, and no other row. */
export function teamOtlpOwner(teamId: string) {
  return { teamId, kind: "team-otlp" as const, id: teamId };
}
