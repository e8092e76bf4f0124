// The workspace part of the context message: the environment (folders, OS,
// shell, time zone, today's date), the git repositories and the project layout,
// each bounded.
import type { GitRepoInfo, LsDirectoryTreeNode, RequestContextEnv } from "../../proto/gen/agent/v1/agent_pb.ts";
import { clipLine, clipList, clipText } from "./bounds.ts";

const WORKSPACE_PATHS_MAX = 20;
const GIT_REPOS_MAX = 10;
const GIT_STATUS_MAX_CHARS = 3_000;
const LAYOUT_MAX_LINES = 200;

export function renderEnvironment(env: RequestContextEnv, now: Date): string {
  const lines = ["<environment>"];
  if (env.osVersion) lines.push(`Operating system: ${clipLine(env.osVersion, 200)}`);
  if (env.shell) lines.push(`Shell: ${clipLine(env.shell, 200)}`);
  if (env.workspacePaths.length > 0) {
    lines.push(
      "Workspace folders:",
      ...clipList(
        env.workspacePaths.map((p) => `- ${p}`),
        WORKSPACE_PATHS_MAX,
        "folders",
      ),
    );
  }
  // project_folder and the other *_folder fields are Cursor's own data folders, not the workspace.
  if (env.processWorkingDirectory) lines.push(`Working directory: ${env.processWorkingDirectory}`);
  const zone = validTimeZone(env.timeZone);
  if (env.timeZone) lines.push(`Time zone: ${clipLine(env.timeZone, 100)}`);
  lines.push(`Today's date: ${today(now, zone)}`);
  lines.push("</environment>");
  return lines.join("\n");
}

export function renderGitRepos(repos: readonly GitRepoInfo[]): string | undefined {
  if (repos.length === 0) return undefined;
  const blocks = repos.map((repo) => {
    const head = [`path="${repo.path}"`, repo.branchName && `branch="${repo.branchName}"`, repo.remoteUrl && `remote="${repo.remoteUrl}"`];
    // Only blank lines are trimmed: porcelain status lines start with meaningful spaces.
    const lines = repo.status.replace(/^\s*\n/, "").trimEnd();
    const status = lines ? clipText(lines, GIT_STATUS_MAX_CHARS) : "(clean)";
    return `<repository ${head.filter(Boolean).join(" ")}>\n${status}\n</repository>`;
  });
  return ["<git_repositories>", ...clipList(blocks, GIT_REPOS_MAX, "repositories"), "</git_repositories>"].join("\n");
}

export function renderLayouts(layouts: readonly LsDirectoryTreeNode[]): string | undefined {
  if (layouts.length === 0) return undefined;
  const lines: string[] = [];
  const budget = { left: LAYOUT_MAX_LINES };
  for (const root of layouts) treeLines(root, root.absPath, 0, lines, budget);
  if (budget.left < 0) lines.push(`[… the layout is cut at ${LAYOUT_MAX_LINES} lines; list folders with Glob or Shell]`);
  return ["<project_layout>", ...lines, "</project_layout>"].join("\n");
}

/** One line per folder and file, indented by depth, until the line budget is spent. */
function treeLines(node: LsDirectoryTreeNode, name: string, depth: number, out: string[], budget: { left: number }): void {
  const indent = "  ".repeat(depth);
  if (!take(budget)) return;
  if (!node.childrenWereProcessed && node.childrenDirs.length === 0 && node.childrenFiles.length === 0) {
    out.push(`${indent}${name}/ ${unlisted(node)}`.trimEnd());
    return;
  }
  out.push(`${indent}${name}/`);
  for (const dir of node.childrenDirs) {
    treeLines(dir, baseName(dir.absPath), depth + 1, out, budget);
    if (budget.left < 0) return;
  }
  for (const file of node.childrenFiles) {
    if (!take(budget)) return;
    out.push(`${indent}  ${file.name}`);
  }
}

function take(budget: { left: number }): boolean {
  budget.left -= 1;
  return budget.left >= 0;
}

/** A folder the client did not expand: its file count and the commonest extensions. */
function unlisted(node: LsDirectoryTreeNode): string {
  const counts = Object.entries(node.fullSubtreeExtensionCounts)
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
    .slice(0, 5)
    .map(([ext, n]) => `${n} ${ext}`);
  if (node.numFiles === 0 && counts.length === 0) return "";
  return `(${node.numFiles} files${counts.length > 0 ? `: ${counts.join(", ")}` : ""})`;
}

function baseName(path: string): string {
  return (
    path
      .replace(/[/\\]+$/, "")
      .split(/[/\\]/)
      .at(-1) || path
  );
}

function validTimeZone(zone: string): string {
  if (!zone) return "UTC";
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return zone;
  } catch {
    return "UTC";
  }
}

/** e.g. "Wednesday, 2026-08-12", in the user's time zone. */
function today(now: Date, timeZone: string): string {
  const date = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
  const weekday = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "long" }).format(now);
  return `${weekday}, ${date}`;
}
