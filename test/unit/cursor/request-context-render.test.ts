// What the model reads of a request context: sections, their bounds and notes,
// and the same bytes for the same context on the same day.
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { RequestContextSchema } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { renderRequestContext } from "../../../src/cursor/context/render.ts";

const NOW = new Date("2026-03-01T23:30:00Z");
const render = (init: MessageInitShape<typeof RequestContextSchema>) => renderRequestContext(create(RequestContextSchema, init), NOW);

describe("renderRequestContext", () => {
  it("renders nothing for a context the model would see nothing of", () => {
    expect(render({})).toBeUndefined();
    expect(render({ webSearchEnabled: false, readLintsEnabled: false })).toBeUndefined();
  });

  it("gives always-applied, user and cloud rules in full and lists the others by path with their description or files", () => {
    const text = render({
      rules: [
        { fullPath: "/w/.cursor/rules/style.mdc", content: "Use tabs.", type: { type: { case: "global", value: {} } } },
        {
          fullPath: "/w/.cursor/rules/db.mdc",
          content: "SECRET DB BODY",
          type: { type: { case: "agentFetched", value: { description: "Database conventions" } } },
        },
        {
          fullPath: "/w/.cursor/rules/ts.mdc",
          content: "TS BODY",
          type: { type: { case: "fileGlobbed", value: { globs: ["*.ts", "*.tsx"] } } },
        },
        { fullPath: "/w/.cursor/rules/release.mdc", content: "RELEASE BODY", type: { type: { case: "manuallyAttached", value: {} } } },
      ],
      nonFileRules: [{ content: "Answer in English." }],
      cloudRule: "Never push to main.",
    })!;
    expect(text).toContain('<rule path="/w/.cursor/rules/style.mdc" applies="always">\nUse tabs.\n</rule>');
    expect(text).toContain('<rule source="user">\nAnswer in English.\n</rule>');
    expect(text).toContain('<rule source="cloud">\nNever push to main.\n</rule>');
    expect(text).toContain("- /w/.cursor/rules/db.mdc: Database conventions");
    expect(text).toContain("- /w/.cursor/rules/ts.mdc (for files matching *.ts, *.tsx)");
    expect(text).toContain("- /w/.cursor/rules/release.mdc (when the user asks for it)");
    for (const body of ["SECRET DB BODY", "TS BODY", "RELEASE BODY"]) expect(text).not.toContain(body);
  });

  it("cuts an over-long rule and says where to read the rest", () => {
    const text = render({
      rules: [{ fullPath: "/w/AGENTS.md", content: "x".repeat(20_000), type: { type: { case: "global", value: {} } } }],
    })!;
    expect(text).toContain("[… 8000 more characters not shown; read /w/AGENTS.md for all of it]");
    expect(text.length).toBeLessThan(13_000);
  });

  it("keeps all full rules together within their budget and counts the ones left out", () => {
    const rules = Array.from({ length: 6 }, (_, i) => ({
      fullPath: `/w/r${i}.mdc`,
      content: `${i}`.repeat(11_000),
      type: { type: { case: "global" as const, value: {} } },
    }));
    const text = render({ rules })!;
    expect(text.length).toBeLessThan(42_000);
    expect(text).toMatch(/\[… 2 more rules not shown: the context size limit was reached\]/);
  });

  it("states the environment: workspace folders, OS, shell, time zone and the date in that zone", () => {
    const text = render({
      env: { workspacePaths: ["/Users/me/app", "/Users/me/lib"], osVersion: "darwin 24.1.0", shell: "/bin/zsh", timeZone: "Asia/Tokyo" },
    })!;
    expect(text).toContain("Operating system: darwin 24.1.0");
    expect(text).toContain("Shell: /bin/zsh");
    expect(text).toContain("Workspace folders:\n- /Users/me/app\n- /Users/me/lib");
    expect(text).toContain("Time zone: Asia/Tokyo");
    // 23:30 UTC on 1 March is already 2 March in Tokyo.
    expect(text).toContain("Today's date: Monday, 2026-03-02");
  });

  it("falls back to UTC for a time zone it does not know", () => {
    expect(render({ env: { timeZone: "Mars/Olympus" } })).toContain("Today's date: Sunday, 2026-03-01");
  });

  it("shows each git repository's branch and status, bounded, and a clean one as clean", () => {
    const text = render({
      gitRepos: [
        { path: "/w", branchName: "main", status: " M src/a.ts\n?? notes.txt" },
        { path: "/w/vendor", branchName: "dev", status: "" },
        { path: "/w/big", branchName: "x", status: "M file\n".repeat(2_000) },
      ],
    })!;
    expect(text).toContain('<repository path="/w" branch="main">\n M src/a.ts\n?? notes.txt\n</repository>');
    expect(text).toContain('<repository path="/w/vendor" branch="dev">\n(clean)\n</repository>');
    expect(text).toMatch(/more characters not shown\]/);
  });

  it("draws the project layout as a tree, summarises folders the client did not expand, and stops at its line bound", () => {
    const text = render({
      projectLayouts: [
        {
          absPath: "/w",
          childrenWereProcessed: true,
          childrenDirs: [
            { absPath: "/w/src", childrenWereProcessed: true, childrenFiles: [{ name: "main.ts" }] },
            {
              absPath: "/w/node_modules",
              childrenWereProcessed: false,
              numFiles: 900,
              fullSubtreeExtensionCounts: { ".js": 800, ".json": 100 },
            },
          ],
          childrenFiles: [{ name: "package.json" }],
        },
      ],
    })!;
    expect(text).toContain(
      "<project_layout>\n/w/\n  src/\n    main.ts\n  node_modules/ (900 files: 800 .js, 100 .json)\n  package.json\n</project_layout>",
    );

    const wide = render({
      projectLayouts: [
        { absPath: "/w", childrenWereProcessed: true, childrenFiles: Array.from({ length: 500 }, (_, i) => ({ name: `f${i}.ts` })) },
      ],
    })!;
    expect(wide.split("\n").filter((l) => l.startsWith("  f")).length).toBe(199);
    expect(wide).toContain("[… the layout is cut at 200 lines; list folders with Glob or Shell]");
  });

  it("lists skills by name, path and description for the model to read, leaving out those the model must not invoke", () => {
    const text = render({
      agentSkills: [
        { fullPath: "/w/.cursor/skills/pdf/SKILL.md", description: "Extract text from PDF files", content: "SKILL BODY" },
        { fullPath: "/w/.cursor/skills/deploy/SKILL.md", description: "Deploys", disableModelInvocation: true },
      ],
    })!;
    expect(text).toContain("- pdf (/w/.cursor/skills/pdf/SKILL.md): Extract text from PDF files");
    expect(text).toContain("read its file with Read");
    expect(text).not.toContain("SKILL BODY");
    expect(text).not.toContain("deploy");
  });

  it("gives each MCP server's instructions under its name", () => {
    const text = render({ mcpInstructions: [{ serverName: "github", instructions: "Prefer the search tool." }] })!;
    expect(text).toContain('<mcp_instructions server="github">\nPrefer the search tool.\n</mcp_instructions>');
  });

  it("renders the same context the same way, byte for byte", () => {
    const init = {
      rules: [{ fullPath: "/w/a.mdc", content: "A", type: { type: { case: "global" as const, value: {} } } }],
      env: { workspacePaths: ["/w"], shell: "bash", timeZone: "UTC" },
      gitRepos: [{ path: "/w", branchName: "main", status: "" }],
    };
    expect(render(init)).toBe(render(init));
    expect(render(init)!.startsWith("<request_context>\n")).toBe(true);
    expect(render(init)!.endsWith("\n</request_context>")).toBe(true);
  });
});
