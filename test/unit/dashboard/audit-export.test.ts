// The Audit page's exports: JSON Lines give back each entry as the API gave it; CSV has a
// header row, quotes every field, and defuses what a spreadsheet would run as a formula.
import { describe, expect, it } from "vitest";
import { toCsv, toJsonLines } from "../../../dashboard/src/audit/export.ts";
import type { AuditEntry } from "../../../dashboard/src/types.ts";

const entry = (over: Partial<AuditEntry> = {}): AuditEntry => ({
  id: "aud_000000000000000000000001",
  at: "2026-05-01T12:00:00.000Z",
  actor: { kind: "user", id: "usr_1", email: "ada@example.com" },
  action: "credential.create",
  target: { kind: "credential", id: "cred_1", name: 'OpenAI "team", main' },
  team_id: "team_1",
  outcome: "ok",
  ip: "203.0.113.9",
  user_agent: null,
  details: { scope: "team", header_names: ["helicone-auth"] },
  ...over,
});

describe("audit exports", () => {
  it("writes one JSON object per line that parses back to the entry", () => {
    const entries = [entry(), entry({ id: "aud_000000000000000000000002", outcome: "denied" })];
    const lines = toJsonLines(entries).split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.slice(0, -1).map((l) => JSON.parse(l))).toEqual(entries);
  });

  it("writes CSV with a header row, every field quoted, quotes doubled, details as JSON", () => {
    const [header, row, end] = toCsv([entry()]).split("\r\n");
    expect(header).toBe(
      '"id","at","actor_kind","actor_id","actor_email","action","target_kind","target_id","target_name","team_id","outcome","ip","user_agent","details"',
    );
    expect(row).toContain('"OpenAI ""team"", main"');
    expect(row).toContain('"{""scope"":""team"",""header_names"":[""helicone-auth""]}"');
    expect(row).toContain(',"",'); // user_agent null: empty
    expect(end).toBe("");
  });

  it("defuses a field a spreadsheet would run as a formula", () => {
    const csv = toCsv([entry({ target: { kind: "team", id: "team_1", name: "=HYPERLINK(1)" } })]);
    expect(csv).toContain(`"'=HYPERLINK(1)"`);
  });
});
