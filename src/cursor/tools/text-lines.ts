// Line handling shared by Read and the edit tools. Edits match on LF text, so
// CRLF files and CRLF model output compare equal.

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

/** The lines of a text; a final newline does not start another line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = normalizeNewlines(text).split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
