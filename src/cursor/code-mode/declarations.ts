// The `tools` object a cell sees, declared in TypeScript for exec's description:
// one method per tool, its argument type read from the tool's JSON Schema, its
// summary from the first sentence of its description. Deterministic, so the
// description (part of the cached prompt prefix) is byte-stable.

export interface DeclaredTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Whether the result may carry images (then it resolves with `{ text, images }`). */
  images: boolean;
}

const SUMMARY_MAX_CHARS = 240;
/** Deeper schemas are declared as `unknown` below this depth: enough for tool arguments. */
const MAX_DEPTH = 4;

/** @internal Exported for its unit test. A tool name as a JavaScript identifier, by Codex's rule: every other character becomes `_`. */
export function normalizeIdentifier(name: string): string {
  let out = "";
  for (const [index, char] of [...name].entries()) {
    const valid = index === 0 ? /[A-Za-z_$]/.test(char) : /[A-Za-z0-9_$]/.test(char);
    out += valid ? char : "_";
  }
  return out || "_";
}

export function toolDeclarations(tools: readonly DeclaredTool[]): string {
  const lines = ["declare const tools: {"];
  for (const tool of tools) {
    const summary = summaryOf(tool.description);
    if (summary) lines.push(`  /** ${summary} */`);
    const result = tool.images ? "string | ToolImages" : "string";
    lines.push(`  ${normalizeIdentifier(tool.name)}(args: ${typeOf(tool.parameters, 1)}): Promise<${result}>;`);
  }
  lines.push("};");
  if (tools.some((tool) => tool.images)) lines.push("type ToolImages = { text: string; images: { image_url: string }[] };");
  return lines.join("\n");
}

function summaryOf(description: string): string {
  const firstLine = description.trim().split("\n")[0] ?? "";
  const sentence = /^(.*?[.!?])(\s|$)/.exec(firstLine)?.[1] ?? firstLine;
  const short = sentence.length > SUMMARY_MAX_CHARS ? `${sentence.slice(0, SUMMARY_MAX_CHARS - 1)}…` : sentence;
  return short.replaceAll("*/", "* /");
}

function typeOf(schema: unknown, depth: number): string {
  if (!isRecord(schema) || depth > MAX_DEPTH) return "unknown";
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema.const);
  const variants = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (variants) return union(variants.map((v) => typeOf(v, depth)));
  if (Array.isArray(schema.type)) return union(schema.type.map((type) => typeOf({ ...schema, type }, depth)));
  switch (schema.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = typeOf(schema.items, depth + 1);
      return item.includes(" ") ? `(${item})[]` : `${item}[]`;
    }
    case "object":
      return objectType(schema, depth);
    default:
      return isRecord(schema.properties) ? objectType(schema, depth) : "unknown";
  }
}

function objectType(schema: Record<string, unknown>, depth: number): string {
  const properties = isRecord(schema.properties) ? Object.entries(schema.properties) : [];
  if (properties.length === 0) return "Record<string, unknown>";
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []);
  const fields = properties.map(([key, value]) => {
    const name = /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? key : JSON.stringify(key);
    return `${name}${required.has(key) ? "" : "?"}: ${typeOf(value, depth + 1)}`;
  });
  return `{ ${fields.join("; ")} }`;
}

function union(types: string[]): string {
  return [...new Set(types)].join(" | ") || "unknown";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
