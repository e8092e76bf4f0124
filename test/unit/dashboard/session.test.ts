// The dashboard's session (dashboard/src/session.ts): a 401 ends the session of the
// credential it answered, never a session signed in since with another one.
import { describe, expect, it } from "vitest";
import { endSessionOf, SESSION_ENDED, sessionState, signedOn, signIn, signOut } from "../../../dashboard/src/session.ts";

const token = (value: string) => ({ kind: "token" as const, token: value });

describe("the dashboard session", () => {
  it("a 401 for an older token leaves the newer session signed in", () => {
    signIn("byok_old");
    signIn("byok_new");
    endSessionOf(token("byok_old"));
    expect(sessionState()).toEqual({ credential: token("byok_new"), endedBecause: null });
  });

  it("a 401 for the current token ends the session with the message the sign-in form shows", () => {
    signIn("byok_current");
    endSessionOf(token("byok_current"));
    expect(sessionState()).toEqual({ credential: null, endedBecause: SESSION_ENDED });
  });

  it("a late 401 after signing out does not replace the sign-out with an ended session", () => {
    signIn("byok_gone");
    signOut();
    endSessionOf(token("byok_gone"));
    expect(sessionState()).toEqual({ credential: null, endedBecause: null });
  });

  it("a 401 for a sign-on ends it, and a late 401 for a token signed out before it leaves it alone", () => {
    signIn("byok_before");
    signedOn();
    endSessionOf(token("byok_before"));
    expect(sessionState().credential).toEqual({ kind: "sign-on" });
    endSessionOf({ kind: "sign-on" });
    expect(sessionState()).toEqual({ credential: null, endedBecause: "Your sign-in has ended. Sign in again." });
  });
});
