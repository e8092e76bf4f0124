// The text side of StrReplace, computed on the server: exact, LF-normalised
// matching, with messages that tell the model how to fix a failed match.
import { normalizeNewlines } from "./text-lines.ts";
import type { Reply } from "./exec-reply.ts";

export function replaceInText(path: string, before: string, oldString: string, newString: string, replaceAll: boolean): Reply<string> {
  const text = normalizeNewlines(before);
  const target = normalizeNewlines(oldString);
  const replacement = normalizeNewlines(newString);
  const count = countOccurrences(text, target);
  if (count === 0) return { ok: false, error: notFoundMessage(path, text, target) };
  if (count > 1 && !replaceAll) {
    return {
      ok: false,
      error: `old_string occurs ${count} times in ${path}. Include more surrounding lines so it matches exactly once, or set replace_all to true to replace every occurrence. The file was not changed.`,
    };
  }
  if (replaceAll) return { ok: true, value: text.split(target).join(replacement) };
  const at = text.indexOf(target);
  return { ok: true, value: text.slice(0, at) + replacement + text.slice(at + target.length) };
}

function countOccurrences(text: string, target: string): number {
  let count = 0;
  for (let at = text.indexOf(target); at !== -1; at = text.indexOf(target, at + target.length)) count++;
  return count;
}

function notFoundMessage(path: string, text: string, target: string): string {
  const base = `old_string was not found in ${path}. The file was not changed.`;
  if (/^\s*\d+\|/m.test(target) && target.split("\n").every((line) => /^\s*\d+\|/.test(line))) {
    return `${base} It looks like it includes the "LINE|" prefixes from Read output; remove them.`;
  }
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  if (squash(target) !== "" && squash(text).includes(squash(target))) {
    return `${base} A match exists when whitespace is ignored: check indentation, tabs versus spaces and line breaks.`;
  }
  return `${base} It must match the current content exactly, including whitespace; Read the file again if it may have changed.`;
}
