// exec's input: the program, optionally after a first line `// @exec: {...}`
// that sets `yield_time_ms` and `max_output_tokens`. The refusals are Codex's own
// texts, so a model trained on Codex reads what it expects (docs/code-mode.md#cursor-runs).

export interface ExecSource {
  code: string;
  yieldTimeMs?: number;
  maxOutputTokens?: number;
}

export type ParsedExecSource = { ok: true; value: ExecSource } | { ok: false; error: string };

const PRAGMA_PREFIX = "// @exec:";
const FIELDS = "`yield_time_ms` and `max_output_tokens`";
const NOT_AN_OBJECT = `exec pragma must be a JSON object with supported fields ${FIELDS}`;
/** u64 in Codex: what JSON can carry beyond this is refused first, with serde's wording. */
const U64_MAX = 2n ** 64n - 1n;

export function parseExecSource(input: string): ParsedExecSource {
  if (input.trim() === "") {
    return {
      ok: false,
      error:
        'exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with first-line `// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}`.',
    };
  }
  const newline = input.indexOf("\n");
  const firstLine = newline === -1 ? input : input.slice(0, newline);
  const rest = newline === -1 ? "" : input.slice(newline + 1);
  const trimmed = firstLine.trimStart();
  if (!trimmed.startsWith(PRAGMA_PREFIX)) return { ok: true, value: { code: input } };
  if (rest.trim() === "") return { ok: false, error: "exec pragma must be followed by JavaScript source on subsequent lines" };
  const directive = trimmed.slice(PRAGMA_PREFIX.length).trim();
  if (directive === "") return { ok: false, error: NOT_AN_OBJECT };
  let value: unknown;
  try {
    value = JSON.parse(directive);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `exec pragma must be valid JSON with supported fields ${FIELDS}: ${reason}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { ok: false, error: NOT_AN_OBJECT };
  const object = value as Record<string, unknown>;
  // Codex's JSON map iterates keys in sorted order; the first unknown one is named.
  const unknown = Object.keys(object)
    .sort()
    .find((key) => key !== "yield_time_ms" && key !== "max_output_tokens");
  if (unknown !== undefined) {
    return { ok: false, error: `exec pragma only supports ${FIELDS}; got \`${unknown}\`` };
  }
  // Codex deserializes both fields first, then checks the safe-integer bound of each.
  const keys = ["yield_time_ms", "max_output_tokens"] as const;
  const invalid = keys.find((key) => !isU64(object[key]));
  if (invalid !== undefined) {
    return {
      ok: false,
      error: `exec pragma fields ${FIELDS} must be non-negative safe integers: invalid value for \`${invalid}\`: ${JSON.stringify(object[invalid])}`,
    };
  }
  const unsafe = keys.find((key) => typeof object[key] === "number" && !Number.isSafeInteger(object[key]));
  if (unsafe !== undefined) return { ok: false, error: `exec pragma field \`${unsafe}\` must be a non-negative safe integer` };
  const yieldTimeMs = object.yield_time_ms as number | null | undefined;
  const maxOutputTokens = object.max_output_tokens as number | null | undefined;
  return {
    ok: true,
    value: {
      code: rest,
      ...(typeof yieldTimeMs === "number" && { yieldTimeMs }),
      ...(typeof maxOutputTokens === "number" && { maxOutputTokens }),
    },
  };
}

/** Absent, null, or a JSON integer a u64 holds. */
function isU64(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && BigInt(value) <= U64_MAX;
}
