// The signed-in token, kept in sessionStorage only (never in the URL or localStorage),
// so it lasts as long as the tab. A 401 for the token still signed in ends the session
// with the message the sign-in form shows (endSessionOf); a late 401 for a token signed
// out or replaced since changes nothing (docs/dashboard.md#sign-in-and-roles).
const KEY = "byok-edge.token";

/** Shown on the sign-in form after a call was refused with 401. */
export const SESSION_ENDED = "Your session has ended: the token is no longer valid. Sign in again.";

export interface SessionState {
  token: string | null;
  /** Why the last session ended, when it did not end by "Sign out". */
  endedBecause: string | null;
}

type Listener = (state: SessionState) => void;

let state: SessionState = { token: readStored(), endedBecause: null };
const listeners = new Set<Listener>();

function readStored(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null; // storage disabled: the session lasts as long as the page
  }
}

function set(next: SessionState): void {
  state = next;
  try {
    if (next.token === null) sessionStorage.removeItem(KEY);
    else sessionStorage.setItem(KEY, next.token);
  } catch {
    // storage disabled: kept in memory only
  }
  for (const listener of listeners) listener(state);
}

export function sessionState(): SessionState {
  return state;
}

export function signIn(token: string): void {
  set({ token, endedBecause: null });
}

/** Drops the token; `because` is shown on the sign-in form (null: the user signed out). */
export function signOut(because: string | null = null): void {
  set({ token: null, endedBecause: because });
}

/**
 * Ends the session of `token` after a 401, unless another token has been signed in since: an answer
 * to a call made with an older token must not sign out a newer session.
 */
export function endSessionOf(token: string): void {
  if (state.token === token) signOut(SESSION_ENDED);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
