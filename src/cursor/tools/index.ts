// The tool sets a run offers the model, in the fixed order of prompt/tools.json
// (that order is part of the cached prompt prefix).
import { askQuestionTool } from "./ask-question.ts";
import { createPlanTool } from "./create-plan.ts";
import { TOOL_DEFINITIONS } from "./definitions.ts";
import { deleteTool } from "./delete.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { mcpAuthTool } from "./mcp-auth.ts";
import { callMcpToolTool } from "./mcp-call.ts";
import { fetchMcpResourceTool } from "./mcp-resource.ts";
import { getMcpToolsTool } from "./mcp-tools.ts";
import { readLintsTool } from "./read-lints.ts";
import { readTool } from "./read.ts";
import { shellTool } from "./shell.ts";
import { strReplaceTool } from "./str-replace.ts";
import { switchModeTool } from "./switch-mode.ts";
import { taskTool } from "./task.ts";
import { todoWriteTool } from "./todo-write.ts";
import type { Tool } from "./tool-types.ts";
import { webFetchTool } from "./web-fetch.ts";
import { webSearchTool } from "./web-search.ts";
import { writeTool } from "./write.ts";

/** Every tool of a lead agent, in tools.json order. */
// Each tool is typed by its own arguments; a set holds them as Tool (args only
// ever flow from a tool's own parse to its own run).
export const AGENT_TOOLS: Tool[] = inDefinitionOrder([
  shellTool,
  readTool,
  writeTool,
  strReplaceTool,
  deleteTool,
  grepTool,
  globTool,
  readLintsTool,
  todoWriteTool,
  taskTool,
  askQuestionTool,
  switchModeTool,
  createPlanTool,
  webSearchTool,
  webFetchTool,
  callMcpToolTool,
  getMcpToolsTool,
  fetchMcpResourceTool,
  mcpAuthTool,
]);

/** Tools that only make sense for the agent the user talks to. */
const LEAD_ONLY = new Set(["AskQuestion", "SwitchMode", "CreatePlan", "Task", "McpAuth"]);

/** A subagent's tools: it cannot ask the user, change modes, plan, spawn agents or ask for a sign-in. */
export const SUBAGENT_TOOLS: Tool[] = AGENT_TOOLS.filter((tool) => !LEAD_ONLY.has(tool.name));

/**
 * The tools of `set` one run offers. WebSearch only with a search backend: the model
 * should not reach for a tool that can only fail. Filtering keeps the tools.json order.
 */
export function offeredTools(set: readonly Tool[], options: { webSearch: boolean }): readonly Tool[] {
  return options.webSearch ? set : set.filter((tool) => tool !== webSearchTool);
}

function inDefinitionOrder(tools: Tool[]): Tool[] {
  const order = TOOL_DEFINITIONS.map((d) => d.name);
  const missing = order.filter((name) => !tools.some((t) => t.name === name));
  if (missing.length > 0) throw new Error(`tools.json defines tools with no implementation: ${missing.join(", ")}`);
  return [...tools].sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
}
