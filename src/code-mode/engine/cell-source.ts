// A cell's source, analysed before any isolate starts (docs/code-mode.md#cell-source).
// Codex runs the source as the ES module `exec_main.mjs`; Workers allow no timers or I/O
// at a module's top level, so the source becomes the body of an async function exported
// by that module. Positions stay those of the user's source: the wrapper's prefix shares
// line 1 (the harness subtracts its length from line-1 columns in stacks), edits keep
// their length, and the suffix starts a new line.
import { type Node, parse } from "acorn";

/** The module the harness imports; stacks name it as Codex does. */
export const CELL_MODULE = "exec_main.mjs";

/** Replaces the `import` of `import(x)` (same length): rejects as Codex does, at run time. */
const DYNAMIC_IMPORT = "__imp_";
const PREFIX = `export default async (${DYNAMIC_IMPORT}) => {`;
const SUFFIX = "\n}\n";

/** Columns the wrapper adds to line 1. */
export const FIRST_LINE_OFFSET = PREFIX.length;

export type SourceAnalysis =
  /** Ready to run: the module text of `exec_main.mjs`. */
  | { kind: "module"; text: string }
  /** Refused before running, with Codex's text (static imports). */
  | { kind: "refused"; errorText: string }
  /** Not valid JavaScript: the runner asks V8 for its message; acorn's is the fallback. */
  | { kind: "syntax-error"; fallbackText: string };

interface Edit {
  start: number;
  end: number;
  text: string;
}

export function analyseSource(source: string): SourceAnalysis {
  let program: Node;
  try {
    program = parse(source, { ecmaVersion: "latest", sourceType: "module", allowHashBang: true });
  } catch (error) {
    return { kind: "syntax-error", fallbackText: acornSyntaxText(error) };
  }
  const edits: Edit[] = [];
  if (source.startsWith("#!")) edits.push({ start: 0, end: 2, text: "//" });
  for (const node of topLevel(program)) {
    const refused = importSpecifier(node);
    if (refused !== undefined) return { kind: "refused", errorText: `Unsupported import in exec: ${refused}` };
    const edit = exportEdit(source, node);
    if (edit) edits.push(edit);
  }
  walk(program, (node) => {
    if (node.type === "ImportExpression") edits.push({ start: node.start, end: node.start + "import".length, text: DYNAMIC_IMPORT });
  });
  return { kind: "module", text: PREFIX + applyEdits(source, edits) + SUFFIX };
}

/** Codex's text for a syntax error from V8's start failure ("Uncaught SyntaxError: … at m.js:1:4"). */
export function syntaxErrorFromStartFailure(message: string): string | undefined {
  const match = /Uncaught (SyntaxError: [^\n]*?)(?:\n\s+at [^\n]*)?$/m.exec(message);
  return match?.[1];
}

function acornSyntaxText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `SyntaxError: ${message.replace(/ \(\d+:\d+\)$/, "")}`;
}

interface AnyNode extends Node {
  [key: string]: unknown;
}

function topLevel(program: Node): AnyNode[] {
  return (program as AnyNode).body as AnyNode[];
}

function importSpecifier(node: AnyNode): string | undefined {
  const from = node.source as AnyNode | null | undefined;
  const refusing =
    node.type === "ImportDeclaration" || node.type === "ExportAllDeclaration" || (node.type === "ExportNamedDeclaration" && from);
  return refusing && from ? String(from.value) : undefined;
}

/** Exports mean nothing inside the wrapper: drop the keyword, keep the declaration. */
function exportEdit(source: string, node: AnyNode): Edit | undefined {
  const declaration = node.declaration as AnyNode | null | undefined;
  if (node.type === "ExportNamedDeclaration") {
    return declaration ? blank(source, node.start, declaration.start) : blank(source, node.start, node.end);
  }
  if (node.type === "ExportDefaultDeclaration" && declaration) {
    const named = (declaration.type === "FunctionDeclaration" || declaration.type === "ClassDeclaration") && declaration.id;
    const edit = blank(source, node.start, declaration.start);
    // An anonymous function or class, or an expression: evaluate it and drop the value.
    return named ? edit : { ...edit, text: `void${edit.text.slice(4)}` };
  }
  return undefined;
}

/** Spaces of the same length, keeping line breaks so that lines keep their numbers. */
function blank(source: string, start: number, end: number): Edit {
  return { start, end, text: source.slice(start, end).replace(/[^\n\r]/g, " ") };
}

function applyEdits(source: string, edits: Edit[]): string {
  let out = source;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  return out;
}

function walk(node: unknown, visit: (node: AnyNode) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  if (node === null || typeof node !== "object" || typeof (node as { type?: unknown }).type !== "string") return;
  visit(node as AnyNode);
  for (const [key, value] of Object.entries(node)) {
    if (key !== "loc" && value !== null && typeof value === "object") walk(value, visit);
  }
}
