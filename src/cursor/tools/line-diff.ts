// A small line diff for edit cards: line counts and a unified diff. Common head
// and tail are trimmed first, so typical edits compare only a few lines; a very
// large changed middle is shown as "all removed, all added" instead of paying
// for a full LCS.
import { splitLines } from "./text-lines.ts";

const CONTEXT_LINES = 3;
/** Largest middle (lines before × lines after) diffed exactly: a 4 MB table. */
const LCS_MAX_CELLS = 1_000_000;
/** A diff longer than this is left out of the card; the counts remain. */
const DIFF_MAX_CHARS = 100_000;

export interface LineDiff {
  added: number;
  removed: number;
  /** Unified diff text, or undefined when it would be too large. */
  unified: string | undefined;
}

type Op = { kind: " " | "-" | "+"; text: string };

export function lineDiff(path: string, before: string, after: string): LineDiff {
  const ops = diffOps(splitLines(before), splitLines(after));
  const added = ops.filter((op) => op.kind === "+").length;
  const removed = ops.filter((op) => op.kind === "-").length;
  if (added === 0 && removed === 0) return { added, removed, unified: "" };
  const unified = `${[`--- a/${path}`, `+++ b/${path}`, ...hunks(ops)].join("\n")}\n`;
  return { added, removed, unified: unified.length > DIFF_MAX_CHARS ? undefined : unified };
}

function diffOps(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const same = (text: string): Op => ({ kind: " ", text });
  return [...a.slice(0, head).map(same), ...middleOps(midA, midB), ...a.slice(a.length - tail).map(same)];
}

function middleOps(a: string[], b: string[]): Op[] {
  const removedAll = a.map((text): Op => ({ kind: "-", text }));
  const addedAll = b.map((text): Op => ({ kind: "+", text }));
  if (a.length === 0 || b.length === 0 || a.length * b.length > LCS_MAX_CELLS) return [...removedAll, ...addedAll];
  // lcs[i * w + j] = length of the LCS of a[i..] and b[j..]
  const w = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * w);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * w + j] = a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      ops.push({ kind: " ", text: a[i++]! });
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
      ops.push({ kind: "-", text: a[i++]! });
    } else {
      ops.push({ kind: "+", text: b[j++]! });
    }
  }
  while (i < a.length) ops.push({ kind: "-", text: a[i++]! });
  while (j < b.length) ops.push({ kind: "+", text: b[j++]! });
  return ops;
}

/** Groups changes with CONTEXT_LINES of context into "@@ -a,n +b,m @@" hunks. */
function hunks(ops: Op[]): string[] {
  // Line numbers (from 1) in the old and new text at each op.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== "+") oldLine++;
    if (op.kind !== "-") newLine++;
  }
  const changed = ops.flatMap((op, index) => (op.kind === " " ? [] : [index]));
  const out: string[] = [];
  let k = 0;
  while (k < changed.length) {
    const firstChange = changed[k]!;
    let lastChange = firstChange;
    // Changes whose contexts would touch share one hunk.
    while (k + 1 < changed.length && changed[k + 1]! - lastChange <= 2 * CONTEXT_LINES + 1) lastChange = changed[++k]!;
    k++;
    const start = Math.max(0, firstChange - CONTEXT_LINES);
    const end = Math.min(ops.length - 1, lastChange + CONTEXT_LINES);
    out.push(hunkText(ops.slice(start, end + 1), oldAt[start]!, newAt[start]!));
  }
  return out;
}

function hunkText(ops: Op[], oldStart: number, newStart: number): string {
  const oldCount = ops.filter((op) => op.kind !== "+").length;
  const newCount = ops.filter((op) => op.kind !== "-").length;
  // An empty side is numbered after the line it follows (unified diff convention).
  const header = `@@ -${oldCount === 0 ? oldStart - 1 : oldStart},${oldCount} +${newCount === 0 ? newStart - 1 : newStart},${newCount} @@`;
  return [header, ...ops.map((op) => `${op.kind}${op.text}`)].join("\n");
}
