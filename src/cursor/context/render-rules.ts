// The rules part of the context message: always-applied rules, user (non-file)
// rules and the cloud rule in full; the other rules listed by path with their
// description or file patterns, for the model to Read when they fit the task.
import type { CursorRule, RequestContext } from "../../proto/gen/agent/v1/agent_pb.ts";
import { clipLine, clipList, clipText, withinBudget } from "./bounds.ts";

const RULE_MAX_CHARS = 12_000;
const RULES_MAX_CHARS = 40_000;
const LISTED_RULES_MAX = 100;
const DESCRIPTION_MAX_CHARS = 300;

export function renderRules(context: RequestContext): string | undefined {
  const rules = context.rules.filter((r) => !r.parseError);
  const full = [
    ...rules.filter(alwaysApplied).map((r) => ruleBlock(`path="${r.fullPath}" applies="always"`, r.content, r.fullPath)),
    ...context.nonFileRules.filter((r) => r.content.trim()).map((r) => ruleBlock('source="user"', r.content)),
    ...(context.cloudRule?.trim() ? [ruleBlock('source="cloud"', context.cloudRule)] : []),
  ];
  const listed = rules.filter((r) => !alwaysApplied(r)).map(listedRule);
  if (full.length === 0 && listed.length === 0) return undefined;
  const lines = ["<rules>", "Rules for this workspace. Follow the rules shown in full."];
  if (full.length > 0) lines.push("", ...withinBudget(full, RULES_MAX_CHARS, "rules"));
  if (listed.length > 0) {
    lines.push("", "Read these rules with Read when the task matches their description or files:");
    lines.push(...clipList(listed, LISTED_RULES_MAX, "rules"));
  }
  lines.push("</rules>");
  return lines.join("\n");
}

/** Global rules, and rules of no stated type, apply to every request. */
function alwaysApplied(rule: CursorRule): boolean {
  const kind = rule.type?.type.case;
  return kind === undefined || kind === "global";
}

function ruleBlock(attributes: string, content: string, path?: string): string {
  return `<rule ${attributes}>\n${clipText(content.trim(), RULE_MAX_CHARS, path)}\n</rule>`;
}

function listedRule(rule: CursorRule): string {
  const type = rule.type?.type;
  switch (type?.case) {
    case "agentFetched":
      return `- ${rule.fullPath}: ${clipLine(type.value.description, DESCRIPTION_MAX_CHARS) || "(no description)"}`;
    case "fileGlobbed":
      return `- ${rule.fullPath} (for files matching ${clipLine(type.value.globs.join(", "), DESCRIPTION_MAX_CHARS)})`;
    default:
      return `- ${rule.fullPath} (when the user asks for it)`;
  }
}
