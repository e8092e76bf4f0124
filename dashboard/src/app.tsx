// The dashboard's shell (docs/dashboard.md): the sign-in form (a token, or the deployment's
// single sign-on), then the navigation the caller's role allows (GET /api/v1/me), a hash router
// (#/models …) and the page. The credential lives in session.ts; a 401 for the one still signed
// in signs out (a late 401 for an older token leaves a newer session alone).
import type { FunctionComponent } from "preact";
import { lazy, Suspense } from "preact/compat";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type Api, ApiError, answer, createApi } from "./api.ts";
import { type Credential, credentialKey, onSessionChange, type SessionState, sessionState, signedOn, signIn, signOut } from "./session.ts";
import type { Me, PageProps } from "./types.ts";
import { ErrorNotice, errorText } from "./ui/notice.tsx";

type Route = "overview" | "models" | "credentials" | "tokens" | "usage" | "runs" | "team" | "audit";

/** Each page is its own chunk, loaded when first opened: the first page stays small (docs/dashboard.md). */
const PAGES: { route: Route; name: string; component: FunctionComponent<PageProps> }[] = [
  { route: "overview", name: "Overview", component: lazy(() => import("./pages/overview.tsx").then((m) => m.OverviewPage)) },
  { route: "models", name: "Models", component: lazy(() => import("./pages/models.tsx").then((m) => m.ModelsPage)) },
  { route: "credentials", name: "Credentials", component: lazy(() => import("./pages/credentials.tsx").then((m) => m.CredentialsPage)) },
  { route: "tokens", name: "Tokens", component: lazy(() => import("./pages/tokens.tsx").then((m) => m.TokensPage)) },
  { route: "usage", name: "Usage", component: lazy(() => import("./pages/usage.tsx").then((m) => m.UsagePage)) },
  { route: "runs", name: "Runs", component: lazy(() => import("./pages/runs.tsx").then((m) => m.RunsPage)) },
  { route: "team", name: "Team", component: lazy(() => import("./pages/team.tsx").then((m) => m.TeamPage)) },
  { route: "audit", name: "Audit", component: lazy(() => import("./pages/audit.tsx").then((m) => m.AuditPage)) },
];

/** The pages a caller has: local (BYOK_TOKEN) has no tokens nor team; members have no Team page (their Audit page shows their own entries). */
function routesFor(me: Me): Route[] {
  if (me.principal === "local") return ["overview", "models", "credentials", "usage", "runs", "audit"];
  if (me.principal === "operator" || me.user?.role === "admin") return PAGES.map((p) => p.route);
  return ["overview", "models", "credentials", "tokens", "usage", "runs", "audit"];
}

export function App() {
  const [session, setSession] = useState<SessionState>(sessionState);
  useEffect(() => onSessionChange(setSession), []);
  if (session.credential === null) return <SignIn endedBecause={session.endedBecause} />;
  return <SignedIn credential={session.credential} key={credentialKey(session.credential)} />;
}

/** What /auth/providers says the deployment offers besides tokens. */
interface SignOnOffer {
  oidc: { name: string; login_url: string } | null;
  access: boolean;
}

/**
 * Whether this browser is signed on already (its session cookie, or Access in front): then the
 * sign-in form is skipped. And what sign-on to offer when it is not.
 */
function useSignOn(): SignOnOffer | null {
  const [offer, setOffer] = useState<SignOnOffer | null>(null);
  useEffect(() => {
    let live = true;
    const probe = createApi({ kind: "sign-on" }, () => {});
    answer(probe.GET("/api/v1/me")).then(
      (me) => live && me.signed_in_via !== null && me.signed_in_via !== "token" && signedOn(),
      () => undefined, // not signed on: the form stays
    );
    fetch("/auth/providers", { signal: AbortSignal.timeout(10_000) })
      .then((res) => (res.ok ? (res.json() as Promise<SignOnOffer>) : null))
      .then(
        (found) => live && setOffer(found),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, []);
  return offer;
}

function SignIn({ endedBecause }: { endedBecause: string | null }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);
  const offer = useSignOn();
  useEffect(() => {
    inputRef.current?.focus();
    document.title = "Sign in · byok-edge";
  }, []);
  async function submit(e: Event) {
    e.preventDefault();
    const value = token.trim();
    if (!value) {
      setError("Enter a token.");
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      // Checked before it is kept: a wrong token is a mistake to fix here, not a session that ended.
      await createApi({ kind: "token", token: value }, () => {}).GET("/api/v1/me");
      signIn(value);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? "That token was not accepted. Check it and try again." : errorText(err));
      inputRef.current?.focus();
    } finally {
      setBusy(false);
    }
  }
  return (
    <main id="main" class="sign-in">
      <h1>byok-edge</h1>
      {endedBecause && !error && <ErrorNotice>{endedBecause}</ErrorNotice>}
      <ErrorNotice>{error}</ErrorNotice>
      <form onSubmit={submit} class="card" noValidate>
        <div class="field">
          <label for="sign-in-token">Token</label>
          <p class="hint" id="sign-in-token-hint">
            Your byok_… token, the deployment's ADMIN_TOKEN, or its BYOK_TOKEN.
          </p>
          {/* Not a password to save: autocomplete off, and the two common managers' own opt-outs. */}
          <input
            ref={inputRef}
            id="sign-in-token"
            name="token"
            type="password"
            autocomplete="off"
            data-1p-ignore
            data-lpignore="true"
            spellcheck={false}
            aria-describedby="sign-in-token-hint sign-in-token-kept"
            value={token}
            onInput={(e) => setToken(e.currentTarget.value)}
          />
          <p class="hint" id="sign-in-token-kept">
            Kept in this tab only; closing it signs you out.
          </p>
        </div>
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
      {offer?.oidc && (
        <div class="card sign-on">
          <p class="hint">Or, without a token, as the person your company's sign-in says you are:</p>
          {/* A navigation, not a fetch: the identity provider's pages take over the tab and bring it back signed in. */}
          <a class="button primary" href={`${offer.oidc.login_url}?return_to=${encodeURIComponent(`/${location.hash}`)}`}>
            Sign in with {offer.oidc.name}
          </a>
        </div>
      )}
    </main>
  );
}

function currentRoute(): string {
  const hash = location.hash;
  return hash.startsWith("#/") ? (hash.slice(2).split(/[/?]/)[0] ?? "") : "";
}

function useHashRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener("hashchange", update);
    return () => removeEventListener("hashchange", update);
  }, []);
  return route;
}

function SignedIn({ credential }: { credential: Credential }) {
  const api: Api = useMemo(() => createApi(credential), [credential]);
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setError(null);
    answer(api.GET("/api/v1/me")).then(
      (m) => live && setMe(m),
      (err) => live && !(err instanceof ApiError && err.status === 401) && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [api, attempt]);
  if (!me) {
    return (
      <main id="main" class="sign-in">
        <h1>byok-edge</h1>
        {error ? (
          <>
            <ErrorNotice>Could not load your account: {error}</ErrorNotice>
            <div class="actions">
              <button type="button" onClick={() => setAttempt((n) => n + 1)}>
                Try again
              </button>
              <button type="button" onClick={() => void leave(me, api)}>
                Sign out
              </button>
            </div>
          </>
        ) : (
          <p role="status">Loading…</p>
        )}
      </main>
    );
  }
  return <Shell api={api} me={me} />;
}

function Shell({ api, me }: PageProps) {
  const route = useHashRoute();
  // Memoised: the effect below depends on it, and a new array each render would re-run it.
  const allowed = useMemo(() => routesFor(me), [me]);
  // #/team opens for anyone: for those without a Team link it says who may manage a team (pages/team.tsx).
  const active = PAGES.find((p) => p.route === route && (allowed.includes(p.route) || p.route === "team"));
  const mainRef = useRef<HTMLElement>(null);
  const firstRender = useRef(true);
  useEffect(() => {
    if (!active) {
      location.replace(`#/${allowed[0]}`);
      return;
    }
    document.title = `${active.name} · byok-edge`;
    // After a navigation, start reading and tabbing at the new page, not at the link.
    if (firstRender.current) firstRender.current = false;
    else mainRef.current?.focus();
  }, [active, allowed]);
  const Page = active?.component;
  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a skip link is a link to #main; the hash itself belongs to the router */}
      <a
        class="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault(); // the hash is the router's
          mainRef.current?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <span class="brand">byok-edge</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.filter((p) => allowed.includes(p.route)).map((p) => (
              <li key={p.route}>
                <a href={`#/${p.route}`} aria-current={p.route === active?.route ? "page" : undefined}>
                  {p.name}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>{who(me)}</span>
          <button type="button" onClick={() => void leave(me, api)}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" ref={mainRef} tabIndex={-1}>
        <Suspense fallback={<p class="muted">Loading…</p>}>{Page && <Page api={api} me={me} key={active.route} />}</Suspense>
      </main>
    </>
  );
}

/**
 * Signs out: a token is forgotten here; a sign-on session is ended at the deployment (its cookie
 * is HttpOnly); Cloudflare Access is left at its own logout page, or it would sign the tab in again.
 */
async function leave(me: Me | null, api: Api): Promise<void> {
  if (me?.signed_in_via === "access") {
    location.assign("/cdn-cgi/access/logout");
    return;
  }
  if (me?.signed_in_via === "session") await api.POST("/api/v1/session/logout").catch(() => undefined);
  signOut();
}

function who(me: Me): string {
  if (me.principal === "operator") return "Operator";
  if (me.principal === "local") return "Single-user (BYOK_TOKEN)";
  const user = me.user;
  return user ? `${user.email} · ${user.role}${me.team ? ` · ${me.team.name}` : ""}` : "Signed in";
}
