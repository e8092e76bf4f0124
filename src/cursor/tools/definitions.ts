// The model-facing tool definitions, read from prompt/tools.json. They are part
// of the cached prompt prefix, so they are frozen here and always handed out in
// the file's own order.
import tools from "../../../prompt/tools.json";
import type { ToolDefinition } from "../../provider/types.ts";

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** Every definition, in the order of prompt/tools.json. */
export const TOOL_DEFINITIONS: readonly ToolDefinition[] = deepFreeze(tools satisfies ToolDefinition[]);

/** The definition of one tool; throws at module load if tools.json lacks it. */
export function definitionOf(name: string): ToolDefinition {
  const found = TOOL_DEFINITIONS.find((d) => d.name === name);
  if (!found) throw new Error(`prompt/tools.json has no definition for tool ${name}`);
  return found;
}
