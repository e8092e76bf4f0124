// A cell's observation as the model sees it, in Codex's result format
// (docs/code-mode.md#results): a status header with the wall time, the cell's
// items, `Script error:` on failure, truncated to the call's token budget.
import type { ContentItem, RuntimeResponse } from "../../code-mode/engine/engine-types.ts";
import { truncateItems } from "./truncation.ts";

/** exec's `max_output_tokens` and wait's `max_tokens` when the model gives none. */
const DEFAULT_MAX_OUTPUT_TOKENS = 10_000;

export interface FormattedResult {
  /** The header first, then the (truncated) items. */
  items: ContentItem[];
  /** False only when the cell completed with an error. */
  success: boolean;
}

export function formatRuntimeResponse(response: RuntimeResponse, maxTokens: number | undefined, wallTimeMs: number): FormattedResult {
  const failed = response.kind === "completed" && response.errorText !== undefined;
  const items = [...response.items];
  if (response.kind === "completed" && response.errorText !== undefined) {
    items.push({ type: "input_text", text: `Script error:\n${response.errorText}` });
  }
  // The budget covers the items only; the header is added after.
  const truncated = truncateItems(items, maxTokens ?? DEFAULT_MAX_OUTPUT_TOKENS);
  const header = `${scriptStatus(response)}\nWall time ${wallTimeSeconds(wallTimeMs)} seconds\nOutput:\n`;
  return { items: [{ type: "input_text", text: header }, ...truncated], success: !failed };
}

function scriptStatus(response: RuntimeResponse): string {
  switch (response.kind) {
    case "yielded":
      return `Script running with cell ID ${response.cellId}`;
    case "terminated":
      return "Script terminated";
    case "completed":
      return response.errorText === undefined ? "Script completed" : "Script failed";
  }
}

/** @internal Exported for its unit test. Seconds rounded to a tenth, always with one decimal ("0.0", "12.3"). */
export function wallTimeSeconds(ms: number): string {
  return (Math.round(Math.max(0, ms) / 100) / 10).toFixed(1);
}

const AUDIO_PLACEHOLDER = "[audio output omitted: this model's tool results cannot carry audio]";

/**
 * The items as one tool-result text and its images: the header, then the texts one
 * per line. Tool results here are text plus images (the images follow the text).
 */
export function resultText(items: readonly ContentItem[]): { text: string; imageUrls: string[] } {
  const [header, ...rest] = items;
  // No provider takes audio in a tool result; the model at least learns that the cell made some.
  const texts = rest.flatMap((item) => (item.type === "input_text" ? [item.text] : item.type === "input_audio" ? [AUDIO_PLACEHOLDER] : []));
  const imageUrls = items.flatMap((item) => (item.type === "input_image" ? [item.image_url] : []));
  const head = header?.type === "input_text" ? header.text : "";
  return { text: head + texts.join("\n"), imageUrls };
}
