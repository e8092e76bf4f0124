// Keeps tool output within what is useful to a model: the head and the tail of
// a long text, with a note saying how much was cut from the middle.

/** About 30k characters: long enough for real build logs, small enough for any context window. */
export const MODEL_TEXT_MAX_CHARS = 30_000;

export function truncateMiddle(text: string, maxChars: number = MODEL_TEXT_MAX_CHARS): string {
  if (text.length <= maxChars) return text;
  const headChars = Math.floor(maxChars / 2);
  const tailChars = maxChars - headChars;
  const head = text.slice(0, headChars);
  const tail = text.slice(text.length - tailChars);
  const omitted = text.length - head.length - tail.length;
  return `${head}\n\n[... ${omitted} characters omitted ...]\n\n${tail}`;
}
