// An MCP tool's input schema as all three providers take a function's parameters
// (docs/providers.md#mcp-tools): an object root without combinators, arrays with
// items, no keywords about the schema document itself. Pure.

type Schema = Record<string, unknown>;

/** What a tool without a usable schema takes: any object. */
const ANY_OBJECT: Schema = { type: "object", properties: {} };

/** Keywords about the document, not the arguments; some validators refuse them. */
const META_KEYWORDS = new Set(["$schema", "$id", "$comment"]);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keywords whose value is one subschema (`items` may also be a list, in older drafts). */
const SCHEMA_VALUES = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contains",
  "propertyNames",
  "not",
  "if",
  "then",
  "else",
]);
/**
 * At the root these make the arguments something other than one object with
 * properties: OpenAI answers "schema must be a JSON Schema of 'type: object'",
 * Anthropic "input_schema does not support oneOf, allOf, or anyOf at the top level".
 */
const ROOT_ONLY_DROPPED = ["allOf", "anyOf", "oneOf", "not", "enum", "const"];
/** Deeper than this, a subschema accepts anything (a bound on hostile input). */
const MAX_DEPTH = 32;

/** The parameters schema to offer for an MCP tool's input schema (any JSON value). */
export function toolParameters(inputSchema: unknown): Schema {
  if (!isRecord(inputSchema)) return { ...ANY_OBJECT };
  const schema = cleanSchema(inputSchema, 0) as Schema;
  if (!describesObject(schema.type)) return { ...ANY_OBJECT };

  let properties: Schema = isRecord(schema.properties) ? schema.properties : {};
  let required = strings(schema.required);
  // allOf: every part applies, so their properties and requirements add up.
  for (const part of records(schema.allOf)) {
    properties = { ...properties, ...(isRecord(part.properties) ? part.properties : {}) };
    required = [...required, ...strings(part.required)];
  }
  // anyOf/oneOf: any property of an alternative may appear; only what all of them require is required.
  const alternatives = [...records(schema.anyOf), ...records(schema.oneOf)];
  if (alternatives.length > 0) {
    for (const alternative of alternatives)
      properties = { ...properties, ...(isRecord(alternative.properties) ? alternative.properties : {}) };
    const common = alternatives.map((a) => strings(a.required)).reduce((a, b) => a.filter((name) => b.includes(name)));
    required = [...required, ...common];
  }

  const kept = Object.entries(schema).filter(([key]) => !ROOT_ONLY_DROPPED.includes(key) && key !== "type");
  const root = Object.fromEntries([["type", "object"], ...kept]) as Schema;
  root.properties = properties;
  if (required.length > 0 || Array.isArray(schema.required)) root.required = [...new Set(required)];
  return root;
}

function describesObject(type: unknown): boolean {
  return type === undefined || type === "object" || (Array.isArray(type) && type.includes("object"));
}

/** The schema with meta keywords removed and every array given `items`, walking only schema positions. */
function cleanSchema(schema: unknown, depth: number): unknown {
  if (!isRecord(schema)) return schema; // true/false schemas, or values the validator will judge
  if (depth > MAX_DEPTH) return {};
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (META_KEYWORDS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      entries.push([key, Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, cleanSchema(sub, depth + 1)]))]);
    } else if ((SCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) {
      entries.push([key, value.map((sub) => cleanSchema(sub, depth + 1))]);
    } else if (SCHEMA_VALUES.has(key)) {
      entries.push([key, cleanSchema(value, depth + 1)]);
    } else {
      entries.push([key, value]); // data (enum, default, examples, required …) stays as it is
    }
  }
  const out = Object.fromEntries(entries) as Schema;
  // OpenAI refuses an array without items ("array schema missing items").
  if (isArrayType(out.type) && out.items === undefined && out.prefixItems === undefined) out.items = {};
  return out;
}

function isArrayType(type: unknown): boolean {
  return type === "array" || (Array.isArray(type) && type.includes("array"));
}

function records(value: unknown): Schema[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function isRecord(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
