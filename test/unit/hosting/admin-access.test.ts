// The admin API's role rules (src/hosting/admin/access.ts): who manages or sees a team
// and a user, and that anything outside the caller's reach is not_found.
import { describe, expect, it } from "vitest";
import type { Principal } from "../../../src/hosting/auth/principal.ts";
import { requireOperator, teamReach, userReach, within } from "../../../src/hosting/admin/access.ts";
import { AppError, codeName } from "../../../src/core/errors.ts";

const user = (id: string, teamId: string, role: "admin" | "member"): Principal => ({
  kind: "user",
  via: "token",
  id,
  teamId,
  role,
  email: `${id}@example.com`,
  tokenId: `tok_${id}`,
  // Access rules never read the token's secret.
  secret: { secretId: `tok_${id}`, base: {} as CryptoKey, wrap: null },
  personalKeyId: null,
});
const operator: Principal = { kind: "operator", id: "operator" };
const local: Principal = { kind: "local", id: "local" };

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (err) {
    return err instanceof AppError ? codeName(err) : "thrown";
  }
}

describe("admin access", () => {
  it("lets the operator and a team's admin manage the team, its member see it, and nobody else reach it", () => {
    expect(teamReach(operator, "t1")).toBe("manage");
    expect(teamReach(user("a", "t1", "admin"), "t1")).toBe("manage");
    expect(teamReach(user("m", "t1", "member"), "t1")).toBe("view");
    expect(teamReach(user("b", "t2", "admin"), "t1")).toBe("none");
    expect(teamReach(local, "t1")).toBe("none");
  });

  it("lets a member see only themselves among users", () => {
    const target = { id: "m", teamId: "t1" };
    expect(userReach(operator, target)).toBe("manage");
    expect(userReach(user("a", "t1", "admin"), target)).toBe("manage");
    expect(userReach(user("m", "t1", "member"), target)).toBe("view");
    expect(userReach(user("p", "t1", "member"), target)).toBe("none");
    expect(userReach(user("b", "t2", "admin"), target)).toBe("none");
    expect(userReach(local, target)).toBe("none");
  });

  it("answers not_found for what is missing or out of reach, permission_denied for what is only seen", () => {
    const team = { id: "t1" };
    const reach = (p: Principal) => (t: { id: string }) => teamReach(p, t.id);
    expect(within(team, reach(operator), "manage", "team t1")).toBe(team);
    expect(codeOf(() => within(undefined, reach(operator), "view", "team t1"))).toBe("not_found");
    expect(codeOf(() => within(team, reach(user("b", "t2", "admin")), "view", "team t1"))).toBe("not_found");
    expect(codeOf(() => within(team, reach(user("m", "t1", "member")), "manage", "team t1"))).toBe("permission_denied");
    expect(within(team, reach(user("m", "t1", "member")), "view", "team t1")).toBe(team);
  });

  it("keeps operator endpoints unimplemented without ADMIN_TOKEN and to the operator with it", () => {
    expect(codeOf(() => requireOperator(operator, {}))).toBe("unimplemented");
    expect(codeOf(() => requireOperator(operator, { ADMIN_TOKEN: "x" }))).toBeUndefined();
    expect(codeOf(() => requireOperator(user("a", "t1", "admin"), { ADMIN_TOKEN: "x" }))).toBe("permission_denied");
  });
});
