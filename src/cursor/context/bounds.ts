// Size bounds of the rendered request context: every piece the client sends is
// cut to a known size, with a note saying what was left out (docs/request-context.md).

/** Text cut to `max` characters, with a note; `rest` says where the model finds the whole (a path to Read). */
export function clipText(text: string, max: number, rest?: string): string {
  if (text.length <= max) return text;
  const where = rest ? `; read ${rest} for all of it` : "";
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown${where}]`;
}

/** A one-line text (a description), cut short. */
export function clipLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/** The first `max` items, and a line saying how many more there are. */
export function clipList(lines: string[], max: number, what: string): string[] {
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `[… ${lines.length - max} more ${what} not shown]`];
}

/**
 * Blocks kept while they fit in `budget` characters together; the first that
 * does not fit is cut to what is left, the rest are counted in a note.
 */
export function withinBudget(blocks: string[], budget: number, what: string): string[] {
  const out: string[] = [];
  let left = budget;
  for (const [i, block] of blocks.entries()) {
    if (block.length <= left) {
      out.push(block);
      left -= block.length;
      continue;
    }
    if (left >= 200) out.push(clipText(block, left));
    const dropped = blocks.length - i - (left >= 200 ? 1 : 0);
    if (dropped > 0) out.push(`[… ${dropped} more ${what} not shown: the context size limit was reached]`);
    break;
  }
  return out;
}
