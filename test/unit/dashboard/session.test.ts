// The dashboard's session (dashboard/src/session.ts): a 401 ends the session of the
// token it answered, never a session signed in since with another token.
import { describe, expect, it } from "vitest";
import { endSessionOf, SESSION_ENDED, sessionState, signIn, signOut } from "../../../dashboard/src/session.ts";

describe("the dashboard session", () => {
  it("a 401 for an older token leaves the newer session signed in", () => {
    signIn("byok_old");
    signIn("byok_new");
    endSessionOf("byok_old");
    expect(sessionState()).toEqual({ token: "byok_new", endedBecause: null });
  });

  it("a 401 for the current token ends the session with the message the sign-in form shows", () => {
    signIn("byok_current");
    endSessionOf("byok_current");
    expect(sessionState()).toEqual({ token: null, endedBecause: SESSION_ENDED });
  });

  it("a late 401 after signing out does not replace the sign-out with an ended session", () => {
    signIn("byok_gone");
    signOut();
    endSessionOf("byok_gone");
    expect(sessionState()).toEqual({ token: null, endedBecause: null });
  });
});
