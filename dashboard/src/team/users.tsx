// A team's users (GET /teams/{id}/users): role and limits, changed in a form
// that opens under the user's row (PATCH /users/{id}), removal after a
// confirmation (DELETE /users/{id}: their tokens stop working), and a form to add one.
import { useCallback, useEffect, useState } from "preact/hooks";
import { type Api, answer } from "../api.ts";
import { formatNumber } from "../format.ts";
import type { User } from "../types.ts";
import { useConfirm } from "../ui/confirm.tsx";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { type Column, DataTable, ExpandButton } from "../ui/table.tsx";
import { type UserFields, UserForm } from "./user-form.tsx";

export function TeamUsers({ api, teamId, selfId }: { api: Api; teamId: string; selfId: string | undefined }) {
  const [users, setUsers] = useState<User[]>();
  const [error, setError] = useState("");
  const [status, setStatus] = useState("");
  const [editing, setEditing] = useState<string>();
  const [dialog, ask] = useConfirm();

  const reload = useCallback(
    () =>
      answer(api.GET("/api/v1/teams/{team_id}/users", { params: { path: { team_id: teamId } } })).then(
        (a) => setUsers(a.users),
        (e: unknown) => setError(`Could not load the users: ${errorText(e)}`),
      ),
    [api, teamId],
  );
  useEffect(() => {
    setUsers(undefined);
    setError("");
    void reload();
  }, [reload]);

  // The add form always has an email (only the edit form leaves it out).
  const add = async ({ email = "", ...body }: UserFields) => {
    const user = await answer(
      api.POST("/api/v1/teams/{team_id}/users", { params: { path: { team_id: teamId } }, body: { email, ...body } }),
    );
    setStatus(`Added ${user.email}.`);
    await reload();
  };
  const save = async (user: User, body: UserFields) => {
    const { email: _email, ...patch } = body;
    await api.PATCH("/api/v1/users/{user_id}", { params: { path: { user_id: user.id } }, body: patch });
    setEditing(undefined);
    setStatus(`Saved ${user.email}.`);
    await reload();
  };
  const remove = async (user: User) => {
    const ok = await ask({
      title: `Remove ${user.email}?`,
      body: <p>They leave the team and every token of theirs stops working within seconds. Their usage stays in the records.</p>,
      confirm: "Remove user",
    });
    if (!ok) return;
    setError("");
    try {
      await api.DELETE("/api/v1/users/{user_id}", { params: { path: { user_id: user.id } } });
      setStatus(`Removed ${user.email}.`);
      await reload();
    } catch (e) {
      setError(`Could not remove ${user.email}: ${errorText(e)}`);
    }
  };

  const limit = (n: number | null) => (n === null ? "no limit" : formatNumber(n));
  const columns: Column<User>[] = [
    {
      header: "Email",
      cell: (user) => (
        <>
          {user.email}
          {user.id === selfId && <span class="sub"> (you)</span>}
        </>
      ),
    },
    { header: "Role", cell: (user) => user.role },
    { header: "Requests per minute", numeric: true, cell: (user) => limit(user.requests_per_minute) },
    { header: "Concurrent runs", numeric: true, cell: (user) => limit(user.max_concurrent_runs) },
    {
      header: "Actions",
      cellClass: "row-actions",
      cell: (user) => (
        <>
          <ExpandButton open={editing === user.id} onToggle={() => setEditing(editing === user.id ? undefined : user.id)}>
            Edit<span class="visually-hidden"> {user.email}</span>
          </ExpandButton>
          <button type="button" class="danger" onClick={() => void remove(user)}>
            Remove<span class="visually-hidden"> {user.email}</span>
          </button>
        </>
      ),
    },
  ];

  return (
    <section aria-labelledby="team-users-title">
      <h3 id="team-users-title">Users</h3>
      <ErrorNotice>{error}</ErrorNotice>
      <StatusNotice>{users === undefined && !error ? "Loading users…" : status}</StatusNotice>
      {users && (
        <DataTable
          caption="Users of the team"
          class="users"
          columns={columns}
          rows={users}
          rowKey={(user) => user.id}
          empty="This team has no users yet."
          detail={(user) =>
            editing === user.id
              ? {
                  content: (
                    <UserForm
                      user={user}
                      submitLabel="Save user"
                      onSubmit={(body) => save(user, body)}
                      onCancel={() => setEditing(undefined)}
                    />
                  ),
                }
              : undefined
          }
        />
      )}
      <h4>Add a user</h4>
      <p class="hint">They get no token yet: issue one on the Tokens page, or they ask an admin for one.</p>
      <UserForm submitLabel="Add user" onSubmit={add} />
      {dialog}
    </section>
  );
}
