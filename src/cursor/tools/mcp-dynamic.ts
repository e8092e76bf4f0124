// The MCP tools of the request context, each offered to the model as a tool of
// its own, `mcp__<server>__<tool>`, after the built-in tools; a call is relayed
// like CallMcpTool (docs/protocol.md#mcp-tools).
import { toJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { McpToolDefinition } from "../../proto/gen/agent/v1/agent_pb.ts";
import { parseArgs } from "./args.ts";
import { emptyMcpCard, mcpStartedCard, relayMcpCall, type McpCall } from "./mcp-call.ts";
import { toolParameters } from "./mcp-schema.ts";
import type { Tool } from "./tool-types.ts";

/** Every provider accepts tool names of this form (OpenAI's rule is the narrowest). */
const NAME_MAX_CHARS = 64;
const NAME_INVALID = /[^a-zA-Z0-9_-]/g;
/** No built-in tool name starts so, so these never shadow one. */
const NAME_PREFIX = "mcp__";

const ArgumentsInput = z.record(z.string(), z.json());

interface McpTarget {
  server: string;
  toolName: string;
  description: string;
  inputSchema: unknown;
}

/**
 * One tool per definition, in a fixed order (by server, then tool) whatever order
 * the client lists them in, with names that depend on each tool's own identifiers,
 * not on where it sorts: the tool list stays byte-stable in the cached prompt prefix.
 */
export function mcpDynamicTools(definitions: readonly McpToolDefinition[]): Tool[] {
  const sorted = definitions.flatMap(targetOf).sort((a, b) => compare(a.server, b.server) || compare(a.toolName, b.toolName));
  // The same server and tool listed twice: offered once.
  const targets = sorted.filter((t, i) => i === 0 || identity(t) !== identity(sorted[i - 1]!));
  const groups = Map.groupBy(targets, plainName);
  const taken = new Set<string>();
  return targets.map((target) => {
    let name = nameOf(target, groups.get(plainName(target))!);
    // Only a hash collision could repeat a name; a suffix keeps the names unique then.
    for (let n = 2; taken.has(name); n++) name = `${name.slice(0, NAME_MAX_CHARS - 3)}_${n}`;
    taken.add(name);
    return dynamicTool(name, target);
  });
}

/**
 * The plain name, unless it is too long or others clean to the same one. In such a
 * group every tool is named by a hash of its own identifiers, except a single one whose
 * identifiers needed no cleaning: the plain name is exactly its own.
 */
function nameOf(target: McpTarget, group: readonly McpTarget[]): string {
  const plain = plainName(target);
  if (plain.length > NAME_MAX_CHARS) return hashedName(target);
  if (group.length === 1) return plain;
  const clean = group.filter((t) => plainName(t) === `${NAME_PREFIX}${t.server}__${t.toolName}`);
  return clean.length === 1 && clean[0] === target ? plain : hashedName(target);
}

function identity(target: McpTarget): string {
  return `${target.server}\u0000${target.toolName}`;
}

/** A definition the client can run (it names a server and a tool), or none. */
function targetOf(definition: McpToolDefinition): McpTarget[] {
  const server = definition.providerIdentifier.trim();
  const toolName = (definition.toolName || definition.name).trim();
  if (!server || !toolName) return [];
  return [{ server, toolName, description: definition.description.trim(), inputSchema: inputSchemaOf(definition) }];
}

function inputSchemaOf(definition: McpToolDefinition): unknown {
  if (definition.inputSchema) return toJson(ValueSchema, definition.inputSchema);
  if (!definition.inputSchemaJson) return undefined;
  try {
    return JSON.parse(definition.inputSchemaJson);
  } catch {
    return undefined; // offered with an open object schema; the server judges the arguments
  }
}

function dynamicTool(name: string, target: McpTarget): Tool<McpCall> {
  const { server, toolName } = target;
  return {
    name,
    definition: Object.freeze({
      name,
      description: target.description || `The tool ${toolName} of the MCP server ${server}.`,
      parameters: toolParameters(target.inputSchema),
    }),
    emptyCard: emptyMcpCard,
    parse: (json) => {
      const parsed = parseArgs(name, ArgumentsInput, json);
      return parsed.ok ? { ok: true, args: { server, toolName, arguments: parsed.args } } : parsed;
    },
    startedCard: mcpStartedCard,
    run: relayMcpCall,
  };
}

function plainName(target: McpTarget): string {
  return `${NAME_PREFIX}${target.server.replace(NAME_INVALID, "_")}__${target.toolName.replace(NAME_INVALID, "_")}`;
}

/** A name too long, or one that only differs from another in cleaned-out characters: cut, plus a hash of the identifiers. */
function hashedName(target: McpTarget): string {
  const suffix = `_${fnv1a(identity(target))}`;
  return `${plainName(target).slice(0, NAME_MAX_CHARS - suffix.length)}${suffix}`;
}

/** FNV-1a, 32 bits, as 8 hex digits: short, stable and synchronous. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
