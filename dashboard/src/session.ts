// Who the dashboard is signed in as (docs/dashboard.md#sign-in-and-roles): a pasted token, kept
// in sessionStorage only (never in the URL or localStorage), so it lasts as long as the tab; or a
// sign-on (the deployment's HttpOnly session cookie, or Cloudflare Access in front of it), which
// the page never sees and so never stores. A 401 for the credential still signed in ends the
// session with the message the sign-in form shows (endSessionOf); a late 401 for one signed out
// or replaced since changes nothing.
const KEY = "byok-edge.token";

/** Shown on the sign-in form after a call was refused with 401. */
export const SESSION_ENDED = "Your session has ended: the token is no longer valid. Sign in again.";
const SIGN_ON_ENDED = "Your sign-in has ended. Sign in again.";

export type Credential = { kind: "token"; token: string } | { kind: "sign-on" };

export interface SessionState {
  credential: Credential | null;
  /** Why the last session ended, when it did not end by "Sign out". */
  endedBecause: string | null;
}

type Listener = (state: SessionState) => void;

let state: SessionState = { credential: readStored(), endedBecause: null };
const listeners = new Set<Listener>();

function readStored(): Credential | null {
  try {
    const token = sessionStorage.getItem(KEY);
    return token ? { kind: "token", token } : null;
  } catch {
    return null; // storage disabled: the session lasts as long as the page
  }
}

function set(next: SessionState): void {
  state = next;
  try {
    if (next.credential?.kind === "token") sessionStorage.setItem(KEY, next.credential.token);
    else sessionStorage.removeItem(KEY);
  } catch {
    // storage disabled: kept in memory only
  }
  for (const listener of listeners) listener(state);
}

export function sessionState(): SessionState {
  return state;
}

export function signIn(token: string): void {
  set({ credential: { kind: "token", token }, endedBecause: null });
}

/** The deployment signed this browser in (its cookie, or Access): nothing to keep here. */
export function signedOn(): void {
  set({ credential: { kind: "sign-on" }, endedBecause: null });
}

/** Drops the credential; `because` is shown on the sign-in form (null: the user signed out). */
export function signOut(because: string | null = null): void {
  set({ credential: null, endedBecause: because });
}

/** A name of a credential, for comparing two and for keying the signed-in tree by it. */
export function credentialKey(credential: Credential): string {
  return credential.kind === "token" ? `token:${credential.token}` : "sign-on";
}

/**
 * Ends the session of `credential` after a 401, unless another has been signed in since: an answer
 * to a call made with an older token must not sign out a newer session.
 */
export function endSessionOf(credential: Credential): void {
  if (state.credential && credentialKey(state.credential) === credentialKey(credential)) {
    signOut(credential.kind === "token" ? SESSION_ENDED : SIGN_ON_ENDED);
  }
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
