// The Tokens page (docs/dashboard.md#tokens): a user's bearer tokens, issued, listed
// and revoked. A new token is shown once, with a Copy button; the API keeps only its
// hash. Members manage their own; admins pick a user of their team, the operator a
// team and a user. Revoking the token this tab is signed in with signs it out.
import { useEffect, useRef, useState } from "preact/hooks";
import { answer } from "../api.ts";
import { formatDateTime } from "../format.ts";
import { SESSION_ENDED, signOut } from "../session.ts";
import type { IssuedToken, PageProps, Team, Token, User } from "../types.ts";
import { useConfirm } from "../ui/confirm.tsx";
import { SelectField, TextField } from "../ui/field.tsx";
import { useApiForm } from "../ui/form.ts";
import { ErrorNotice, errorText, StatusNotice } from "../ui/notice.tsx";
import { type Column, DataTable } from "../ui/table.tsx";

export function TokensPage({ api, me }: PageProps) {
  const [teams, setTeams] = useState<Team[]>([]);
  const [teamId, setTeamId] = useState(me.user?.team_id ?? "");
  const [users, setUsers] = useState<User[] | null>(null);
  const [userId, setUserId] = useState(me.user?.id ?? "");
  const [pickError, setPickError] = useState<string | null>(null);
  const isAdmin = me.user?.role === "admin";

  // The operator picks a team first.
  useEffect(() => {
    if (!me.operator) return;
    answer(api.GET("/api/v1/teams")).then(
      (r) => {
        setTeams(r.teams);
        setTeamId((t) => t || (r.teams[0]?.id ?? ""));
      },
      (err) => setPickError(errorText(err)),
    );
  }, [api, me.operator]);

  // Admins and the operator pick a user of the team.
  useEffect(() => {
    if (!(me.operator || isAdmin) || !teamId) return;
    setUsers(null);
    answer(api.GET("/api/v1/teams/{team_id}/users", { params: { path: { team_id: teamId } } })).then(
      (r) => {
        setUsers(r.users);
        setUserId((u) => (r.users.some((x) => x.id === u) ? u : (r.users[0]?.id ?? "")));
      },
      (err) => setPickError(errorText(err)),
    );
  }, [api, me.operator, isAdmin, teamId]);

  const user = users?.find((u) => u.id === userId);
  const whose = userId === me.user?.id ? "your" : user ? `${user.email}'s` : "the user's";
  return (
    <>
      <h1>Tokens</h1>
      <p class="muted">
        Bearer tokens for Cursor and the API. A token is shown once, when it is issued; after that only its name and dates.
      </p>
      <ErrorNotice>{pickError}</ErrorNotice>
      {(me.operator || isAdmin) && (
        <div class="grid">
          {me.operator && (
            <SelectField
              label="Team"
              name="team"
              value={teamId}
              onValue={setTeamId}
              options={teams.map((t) => ({ value: t.id, label: t.name }))}
              hint={teams.length === 0 ? "No teams yet." : undefined}
            />
          )}
          <SelectField
            label="User"
            name="user"
            value={userId}
            onValue={setUserId}
            disabled={users === null}
            options={(users ?? []).map((u) => ({ value: u.id, label: `${u.email}${u.id === me.user?.id ? " (you)" : ""}` }))}
            hint={users?.length === 0 ? "This team has no users yet." : "Whose tokens to manage."}
          />
        </div>
      )}
      {userId ? <UserTokens key={userId} {...{ api, me, userId, whose }} /> : null}
    </>
  );
}

function UserTokens({ api, me, userId, whose }: PageProps & { userId: string; whose: string }) {
  const [tokens, setTokens] = useState<Token[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [status, setStatus] = useState("");
  const [issued, setIssued] = useState<IssuedToken | null>(null);
  const [confirmDialog, ask] = useConfirm();

  async function load() {
    try {
      setTokens((await answer(api.GET("/api/v1/users/{user_id}/tokens", { params: { path: { user_id: userId } } }))).tokens);
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(err));
    }
  }
  useEffect(() => {
    void load();
  }, []);

  const isSession = (t: Token) => t.id === me.token?.id;

  async function revoke(t: Token) {
    const ok = await ask({
      title: `Revoke ${t.name}?`,
      body: (
        <p>
          It stops working within seconds, everywhere it is used.
          {isSession(t) && <strong> It is the token you are signed in with: you will be signed out.</strong>}
        </p>
      ),
      confirm: "Revoke token",
    });
    if (!ok) return;
    setActionError(null);
    try {
      await api.DELETE("/api/v1/tokens/{token_id}", { params: { path: { token_id: t.id } } });
      if (isSession(t)) {
        signOut(SESSION_ENDED);
        return;
      }
      setStatus(`${t.name} revoked.`);
      await load(); // after revoking the session's own token (when /me did not say which it is) this is the 401 that signs out
    } catch (err) {
      setActionError(errorText(err));
    }
  }

  const state = (t: Token) => {
    if (t.revoked_at) return `Revoked ${formatDateTime(t.revoked_at)}`;
    if (t.expires_at && Date.parse(t.expires_at) <= Date.now()) return "Expired";
    return "Active";
  };
  const columns: Column<Token>[] = [
    {
      header: "Name",
      cell: (t) => (
        <>
          {isSession(t) ? `${t.name} (this session)` : t.name}
          {/* Issued by someone else, an admin or the operator (docs/hosting.md#audit-log): its owner sees who. */}
          {t.issued_by && <span class="muted issued-by"> · issued by {t.issued_by.email ?? t.issued_by.id}</span>}
          {/* It opens its user's personal credentials (docs/keys-at-rest.md#personal-keys). */}
          {t.holds_personal_key && !t.revoked_at && <span class="muted"> · opens personal keys</span>}
        </>
      ),
    },
    { header: "Created", cell: (t) => formatDateTime(t.created_at) },
    { header: "Expires", cell: (t) => (t.expires_at ? formatDateTime(t.expires_at) : "Never") },
    { header: "Last used", cell: (t) => (t.last_used_at ? formatDateTime(t.last_used_at) : "Never") },
    { header: "Status", cell: state },
    {
      header: "Actions",
      cell: (t) =>
        t.revoked_at ? null : (
          <button type="button" class="danger" onClick={() => void revoke(t)} aria-label={`Revoke ${t.name}`}>
            Revoke
          </button>
        ),
    },
  ];
  return (
    <>
      <ErrorNotice>{loadError && `Could not load the tokens: ${loadError}`}</ErrorNotice>
      <ErrorNotice>{actionError}</ErrorNotice>
      <StatusNotice>{status}</StatusNotice>
      {issued ? (
        <NewToken
          issued={issued}
          onDone={() => {
            setIssued(null);
            setStatus("");
          }}
        />
      ) : (
        <IssueToken
          api={api}
          me={me}
          userId={userId}
          onIssued={(t) => {
            setIssued(t);
            void load();
          }}
        />
      )}
      {tokens === null && !loadError ? (
        <p role="status">Loading…</p>
      ) : (
        <DataTable
          caption={`${whose.charAt(0).toUpperCase()}${whose.slice(1)} tokens`}
          columns={columns}
          rows={tokens ?? []}
          rowKey={(t) => t.id}
          empty="No tokens yet."
        />
      )}
      {confirmDialog}
    </>
  );
}

function IssueToken({ api, me, userId, onIssued }: PageProps & { userId: string; onIssued: (t: IssuedToken) => void }) {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const form = useApiForm();
  const own = userId === me.user?.id;
  const cap = me.team_max_token_days;
  async function issue(body: { name: string; expires_at: string | null }) {
    let issued: IssuedToken | undefined;
    const ok = await form.run(async () => {
      issued = await answer(api.POST("/api/v1/users/{user_id}/tokens", { params: { path: { user_id: userId } }, body }));
    });
    if (ok && issued) {
      setName("");
      setExpires("");
      onIssued(issued);
    }
  }
  function submit(e: Event) {
    e.preventDefault();
    // datetime-local is the reader's local time; the API wants ISO-8601 (an unreadable value is sent as typed, for the API to name).
    const at = expires ? new Date(expires) : null;
    void issue({ name, expires_at: at === null ? null : Number.isNaN(at.getTime()) ? expires : at.toISOString() });
  }
  return (
    <section class="panel" aria-labelledby="issue-title">
      <h2 id="issue-title">Issue a token</h2>
      <ErrorNotice>{form.alert}</ErrorNotice>
      {own && (
        <p class="actions">
          {/* One click, for the common case: a token for Cursor, named by the day, as long-lived as the team allows. */}
          <button
            type="button"
            class="primary"
            disabled={form.busy}
            onClick={() => void issue({ name: `Cursor ${new Date().toISOString().slice(0, 10)}`, expires_at: null })}
          >
            New token for Cursor
          </button>
          <span class="hint">
            {cap ? `Expires in ${cap} days, your team's limit.` : "Never expires; revoke it here when you stop using it."}
          </span>
        </p>
      )}
      <form ref={form.formRef} onSubmit={submit} noValidate>
        <div class="grid">
          <TextField
            label="Name"
            name="name"
            required
            maxLength={200}
            value={name}
            onValue={setName}
            error={form.fields.name}
            hint="Where it is used, e.g. laptop."
          />
          <TextField
            label="Expires (optional)"
            name="expires_at"
            type="datetime-local"
            value={expires}
            onValue={setExpires}
            error={form.fields.expires_at}
            hint={cap ? `Empty: in ${cap} days, the team's limit.` : "Empty: never."}
          />
        </div>
        <button type="submit" class="primary" disabled={form.busy}>
          Issue token
        </button>
      </form>
    </section>
  );
}

/** The new token, once: selectable text and a Copy button (the clipboard API, else the text is selected for Ctrl+C). */
function NewToken({ issued, onDone }: { issued: IssuedToken; onDone: () => void }) {
  const inputRef = useRef<HTMLInputElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [copyStatus, setCopyStatus] = useState("");
  useEffect(() => headingRef.current?.focus(), []);
  async function copy() {
    try {
      await navigator.clipboard.writeText(issued.token);
      setCopyStatus("Copied to the clipboard.");
    } catch {
      inputRef.current?.focus();
      inputRef.current?.select();
      setCopyStatus("The browser did not allow copying: the token is selected, press Ctrl+C (⌘C on a Mac).");
    }
  }
  return (
    <section class="panel new-token" aria-labelledby="new-token-title">
      <h2 id="new-token-title" ref={headingRef} tabIndex={-1}>
        New token: {issued.name}
      </h2>
      <p class="notice notice-error">Copy it now: it will not be shown again.</p>
      <div class="field">
        <label for="new-token-value">Token</label>
        <input
          ref={inputRef}
          id="new-token-value"
          class="secret"
          readOnly
          value={issued.token}
          spellcheck={false}
          onFocus={(e) => e.currentTarget.select()}
        />
      </div>
      <div class="actions">
        <button type="button" class="primary" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <StatusNotice>{copyStatus}</StatusNotice>
    </section>
  );
}
