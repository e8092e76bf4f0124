// The request context as the model reads it: one user message, sections in a
// fixed order, each bounded (docs/request-context.md). Pure: the same context on
// the same day renders the same bytes, which is what keeps the prefix stable.
import type { AgentSkill, McpInstructions, RequestContext } from "../../proto/gen/agent/v1/agent_pb.ts";
import { clipLine, clipList, clipText, withinBudget } from "./bounds.ts";
import { renderRules } from "./render-rules.ts";
import { renderEnvironment, renderGitRepos, renderLayouts } from "./render-workspace.ts";

const MCP_INSTRUCTIONS_MAX_CHARS = 4_000;
const MCP_INSTRUCTIONS_TOTAL_CHARS = 12_000;
const SKILLS_MAX = 100;
const DESCRIPTION_MAX_CHARS = 300;

/** The context message's text, or undefined when the context holds nothing the model would see. */
export function renderRequestContext(context: RequestContext, now: Date): string | undefined {
  const sections = [
    renderRules(context),
    renderSkills(context),
    renderMcpInstructions(context.mcpInstructions),
    renderGitRepos(context.gitRepos),
    renderLayouts(context.projectLayouts),
  ].filter((s): s is string => s !== undefined);
  if (!context.env && sections.length === 0) return undefined;
  const env = context.env ? [renderEnvironment(context.env, now)] : [];
  return [
    "<request_context>",
    "The user's workspace and settings, as Cursor sent them with this message. A later <request_context> replaces this one.",
    "",
    [...env, ...sections].join("\n\n"),
    "</request_context>",
  ].join("\n");
}

function renderSkills(context: RequestContext): string | undefined {
  const skills = context.agentSkills.filter((s) => !s.parseError && !s.disableModelInvocation).map(skillLine);
  const listed = new Set(context.agentSkills.map((s) => s.fullPath));
  // Older clients describe skills only in skill_options.
  for (const d of context.skillOptions?.skillDescriptors ?? []) {
    const path = d.readmeFilePath || d.folderPath;
    if (!d.enabled || d.parseError || listed.has(path)) continue;
    skills.push(`- ${d.name} (${path}): ${clipLine(d.description, DESCRIPTION_MAX_CHARS) || "(no description)"}`);
  }
  if (skills.length === 0) return undefined;
  return [
    "<skills>",
    "Skills are instructions for particular kinds of task. When a task matches a skill's description, read its file with Read before you start, and follow it.",
    ...clipList(skills, SKILLS_MAX, "skills"),
    "</skills>",
  ].join("\n");
}

function skillLine(skill: AgentSkill): string {
  return `- ${skillName(skill.fullPath)} (${skill.fullPath}): ${clipLine(skill.description, DESCRIPTION_MAX_CHARS) || "(no description)"}`;
}

/** A skill is named by its folder (…/pdf/SKILL.md → pdf), else by its file. */
function skillName(path: string): string {
  const parts = path.split(/[/\\]/).filter(Boolean);
  const file = parts.at(-1) ?? path;
  if (/^skill\.md$/i.test(file) && parts.length > 1) return parts.at(-2)!;
  return file.replace(/\.[^.]+$/, "");
}

function renderMcpInstructions(instructions: readonly McpInstructions[]): string | undefined {
  const blocks = instructions
    .filter((i) => i.instructions.trim())
    .map(
      (i) =>
        `<mcp_instructions server="${i.serverName || i.serverIdentifier}">\n${clipText(i.instructions.trim(), MCP_INSTRUCTIONS_MAX_CHARS)}\n</mcp_instructions>`,
    );
  if (blocks.length === 0) return undefined;
  return withinBudget(blocks, MCP_INSTRUCTIONS_TOTAL_CHARS, "MCP server instructions").join("\n");
}
