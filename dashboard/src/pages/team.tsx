// Team (#/team): for a team's admins their team, for the operator every team
// (docs/dashboard.md#team): name and monthly budget with how much is used, the
// users with their roles and limits. Members do not get the page.
import { useCallback, useEffect, useState } from "preact/hooks";
import { answer } from "../api.ts";
import type { PageProps, Team } from "../types.ts";
import { BudgetMeter } from "../team/budget.tsx";
import { TeamSettings } from "../team/team-settings.tsx";
import { CreateTeam, TeamList } from "../team/teams.tsx";
import { TeamUsers } from "../team/users.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import "../team/team.css";

export function TeamPage({ api, me }: PageProps) {
  const operator = me.principal === "operator";
  const admin = me.principal === "user" && me.user?.role === "admin";
  const [teams, setTeams] = useState<Team[]>();
  const [selected, setSelected] = useState<string | undefined>(operator ? undefined : me.user?.team_id);
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [budgetVersion, setBudgetVersion] = useState(0);

  const load = useCallback(
    () =>
      answer(api.GET("/api/v1/teams")).then(
        (answer) => setTeams(answer.teams),
        (e: unknown) => setError(`Could not load teams: ${errorText(e)}`),
      ),
    [api],
  );
  useEffect(() => {
    if (operator || admin) void load();
  }, [load, operator, admin]);

  if (!operator && !admin) {
    return (
      <section class="page team-page">
        <h1>Team</h1>
        <p class="notice">
          Only team admins and the operator manage a team.{" "}
          {me.principal === "local"
            ? "The single-user token belongs to no team."
            : "Ask an admin of your team to change users, limits or the budget."}
        </p>
      </section>
    );
  }

  const team = teams?.find((t) => t.id === selected);
  const saved = (next: Team) => {
    setTeams((old) => old?.map((t) => (t.id === next.id ? next : t)));
    setBudgetVersion((v) => v + 1);
  };

  return (
    <section class="page team-page">
      <h1>Team</h1>
      <ErrorNotice>{error}</ErrorNotice>
      <StatusNotice>{teams === undefined && !error ? "Loading…" : status}</StatusNotice>
      {operator && teams && <TeamList teams={teams} selected={selected} onPick={setSelected} />}
      {team && (
        <section class="team-detail" aria-labelledby="team-name">
          <h2 id="team-name" class="team-heading">
            {operator ? `Team: ${team.name}` : team.name}
          </h2>
          <div class="team-summary">
            <BudgetMeter api={api} teamId={team.id} version={budgetVersion} />
            <TeamSettings key={team.id} api={api} team={team} onSaved={saved} />
          </div>
          <TeamUsers key={team.id} api={api} teamId={team.id} selfId={me.user?.id} />
        </section>
      )}
      {operator && teams && (
        <CreateTeam
          api={api}
          onCreated={(created) => {
            setStatus(`Created the team ${created.name}.`);
            setTeams((old) => [...(old ?? []), created]);
            setSelected(created.id);
          }}
        />
      )}
    </section>
  );
}
