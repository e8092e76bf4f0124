// Validating the model's JSON arguments with zod. Models are sloppy in small,
// harmless ways (null for "absent", "10" for 10), so the field helpers accept
// those; anything else becomes a clear message the model can act on.
import { z } from "zod";
import { type Issue, issuesOf } from "../../core/zod-issues.ts";
import type { ParsedArgs } from "./tool-types.ts";

/** Parses and validates `argumentsJson`; empty text counts as `{}`. */
export function parseArgs<S extends z.ZodType>(toolName: string, schema: S, argumentsJson: string): ParsedArgs<z.output<S>> {
  let raw: unknown;
  try {
    raw = argumentsJson.trim() === "" ? {} : JSON.parse(argumentsJson);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `Invalid arguments for ${toolName}: not valid JSON (${reason}).` };
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { ok: false, error: `Invalid arguments for ${toolName}: expected a JSON object.` };
  }
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, args: result.data };
  const problems = issuesOf(result.error).map(describeIssue).join("; ");
  return { ok: false, error: `Invalid arguments for ${toolName}: ${problems}.` };
}

/** Worded for the model: a missing argument by name, paths quoted. */
function describeIssue({ path, message, missing }: Issue): string {
  if (missing) return `missing required argument "${path}"`;
  return path ? `"${path}": ${message}` : message;
}

const absentAsUndefined = (value: unknown): unknown => (value === null ? undefined : value);

/** An optional field that also accepts null. */
export function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(absentAsUndefined, schema.optional());
}

/** An integer (at least `min` when given) that may arrive as a numeric string. */
export function integer(min?: number) {
  const base = z.number().int();
  return z.preprocess(
    (value) => (typeof value === "string" && /^\s*-?\d+(\.0*)?\s*$/.test(value) ? Number(value) : value),
    min === undefined ? base : base.min(min),
  );
}

/** A boolean that may arrive as "true" or "false". */
export const boolean = z.preprocess((value) => (value === "true" ? true : value === "false" ? false : value), z.boolean());

/**
 * Copies the first present alias onto `key` (e.g. `file_path` → `path`),
 * because models trained on other agents use those names.
 */
export function withAliases(key: string, aliases: readonly string[]) {
  return (value: unknown): unknown => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const record = value as Record<string, unknown>;
    if (record[key] !== undefined && record[key] !== null) return value;
    const alias = aliases.find((a) => typeof record[a] === "string");
    return alias === undefined ? value : { ...record, [key]: record[alias] };
  };
}
