// Codex's output truncation for code-mode results (docs/code-mode.md#results): a
// token budget at about 4 bytes a token, the middle of an oversized text cut out
// and replaced by `…N tokens truncated…`, and the budget shared by text items in
// order when images are among them. Lengths are UTF-8 bytes, as in Codex.
import type { ContentItem } from "../../code-mode/engine/engine-types.ts";

const BYTES_PER_TOKEN = 4;
const encoder = new TextEncoder();

function byteLength(text: string): number {
  return encoder.encode(text).byteLength;
}

/** @internal Exported for its unit test. Tokens of a text: its bytes divided by 4, rounded up. */
export function approxTokenCount(text: string): number {
  return Math.ceil(byteLength(text) / BYTES_PER_TOKEN);
}

/** Lines as Rust's `str::lines` counts them: a final newline ends the last line, it does not start one. */
function lineCount(text: string): number {
  if (text === "") return 0;
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines.length;
}

/** @internal Exported for its unit test.
 *
 * Keeps about `maxTokens` of `text`: half the byte budget from the start, half from the end,
 * on character boundaries, with the marker in between.
 */
export function truncateMiddle(text: string, maxTokens: number): string {
  if (text === "") return "";
  const totalBytes = byteLength(text);
  const maxBytes = maxTokens * BYTES_PER_TOKEN;
  if (maxBytes === 0) return marker(Math.ceil(totalBytes / BYTES_PER_TOKEN));
  if (totalBytes <= maxBytes) return text;
  const headBudget = Math.floor(maxBytes / 2);
  const tailStart = totalBytes - (maxBytes - headBudget);
  let headEnd = 0;
  let tailFrom = text.length;
  let tailStarted = false;
  let offset = 0;
  let index = 0;
  for (const char of text) {
    const end = offset + byteLength(char);
    if (end <= headBudget) {
      headEnd = index + char.length;
    } else if (offset >= tailStart && !tailStarted) {
      tailFrom = index;
      tailStarted = true;
    }
    offset = end;
    index += char.length;
  }
  if (tailFrom < headEnd) tailFrom = headEnd;
  // Codex counts the removed tokens from the bytes over budget, not from what was cut.
  return `${text.slice(0, headEnd)}${marker(Math.ceil((totalBytes - maxBytes) / BYTES_PER_TOKEN))}${text.slice(tailFrom)}`;
}

function marker(tokens: number): string {
  return `…${tokens} tokens truncated…`;
}

/** @internal Exported for its unit test. A text over budget, cut, under the warning Codex puts on it. */
export function formattedTruncate(text: string, maxTokens: number): string {
  if (byteLength(text) <= maxTokens * BYTES_PER_TOKEN) return text;
  return `Warning: truncated output (original token count: ${approxTokenCount(text)})\nTotal output lines: ${lineCount(text)}\n\n${truncateMiddle(text, maxTokens)}`;
}

/**
 * Truncates a result's items within `maxTokens`. Text only: the texts are joined with
 * newlines and, when over budget, become one warned, cut text. With images: the texts
 * share the budget in order (the first one over it is cut, later ones are counted as
 * omitted), and every image is kept.
 */
export function truncateItems(items: readonly ContentItem[], maxTokens: number): ContentItem[] {
  if (items.every(isText)) return truncateTexts(items, maxTokens);
  const out: ContentItem[] = [];
  let remaining = maxTokens;
  let omitted = 0;
  for (const item of items) {
    if (item.type !== "input_text") {
      out.push(item);
      continue;
    }
    if (item.text === "") continue;
    if (remaining === 0) {
      omitted++;
      continue;
    }
    const cost = approxTokenCount(item.text);
    if (cost <= remaining) {
      out.push(item);
      remaining -= cost;
      continue;
    }
    const snippet = truncateMiddle(item.text, remaining);
    if (snippet === "") omitted++;
    else out.push({ type: "input_text", text: snippet });
    remaining = 0;
  }
  if (omitted > 0) out.push({ type: "input_text", text: `[omitted ${omitted} text items ...]` });
  return out;
}

type TextItem = Extract<ContentItem, { type: "input_text" }>;

function isText(item: ContentItem): item is TextItem {
  return item.type === "input_text";
}

function truncateTexts(items: readonly TextItem[], maxTokens: number): ContentItem[] {
  if (items.length === 0) return [];
  const combined = items.map((item) => item.text).join("\n");
  if (byteLength(combined) <= maxTokens * BYTES_PER_TOKEN) return [...items];
  return [{ type: "input_text", text: formattedTruncate(combined, maxTokens) }];
}
