// The tools a run offers, given the client's request context: a tool the client
// switched off (web search, web fetch, lints) is left out, one it must switch on
// (MCP sign-in) is offered only then, and the workspace's
// custom subagents become Task subagent types, and its MCP servers' tools are offered. Without a context, or with
// nothing to change, the set stays as it is but for the opt-in tools (byte-stable definitions).
import type { RequestContext } from "../../proto/gen/agent/v1/agent_pb.ts";
import { mcpDynamicTools } from "../tools/mcp-dynamic.ts";
import { taskToolFor } from "../tools/task.ts";
import type { Tool } from "../tools/tool-types.ts";

/** RequestContext switches and the tool each one governs; only an explicit `false` turns a tool off. */
const SWITCHES = [
  ["WebSearch", (c: RequestContext) => c.webSearchEnabled],
  ["WebFetch", (c: RequestContext) => c.webFetchEnabled],
  ["ReadLints", (c: RequestContext) => c.readLintsEnabled],
] as const;

/** Tools a client must say it can serve: offered only on an explicit `true`. */
const OPT_IN = [["McpAuth", (c: RequestContext) => c.supportsMcpAuth]] as const;

export function toolsForContext(tools: readonly Tool[], context: RequestContext | undefined): readonly Tool[] {
  const off = new Set<string>(OPT_IN.filter(([, enabled]) => !context || enabled(context) !== true).map(([name]) => name));
  if (!context) return tools.filter((tool) => !off.has(tool.name));
  for (const [name, enabled] of SWITCHES) if (enabled(context) === false) off.add(name);
  const builtIn = tools
    .filter((tool) => !off.has(tool.name))
    .map((tool) => (tool.name === "Task" && context.customSubagents.length > 0 ? taskToolFor(context.customSubagents) : tool));
  // The context's MCP tools follow the built-in ones (docs/protocol.md#mcp-tools).
  return [...builtIn, ...mcpDynamicTools(context.tools)];
}
