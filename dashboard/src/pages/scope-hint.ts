// What a credential's or model's Scope field says to whom: the single user has no
// team, an admin may add team ones, a member adds personal ones.
import type { Me } from "../types.ts";

export function scopeHint(me: Me, isAdmin: boolean, admin: string, member: string): string {
  if (me.principal === "local") return "Personal: the single user (BYOK_TOKEN) has no team.";
  return isAdmin ? admin : member;
}
