// Turns a GrepSuccess into text for the model, ripgrep style: "path" headings
// with "12:match" and "13-context" lines, file lists, or per-file counts.
import type { GrepSuccess, GrepUnionResult } from "../../proto/gen/agent/v1/agent_pb.ts";
import { truncateMiddle } from "./truncate.ts";

export function renderGrep(result: GrepSuccess): string {
  const sections = Object.entries(result.workspaceResults)
    .map(([root, union]) => ({ root, text: renderUnion(union) }))
    .filter((s) => s.text !== "");
  if (sections.length === 0) return "No matches found.";
  if (sections.length === 1) return truncateMiddle(sections[0]!.text);
  return truncateMiddle(sections.map((s) => `Results in ${s.root}:\n${s.text}`).join("\n\n"));
}

function renderUnion(union: GrepUnionResult): string {
  const r = union.result;
  switch (r.case) {
    case "files": {
      if (r.value.files.length === 0) return "";
      const total = Math.max(r.value.totalFiles, r.value.files.length);
      return withNotes(r.value.files.join("\n"), [`${total} ${total === 1 ? "file" : "files"}`], r.value);
    }
    case "count": {
      if (r.value.counts.length === 0) return "";
      const lines = r.value.counts.map((c) => `${c.file}:${c.count}`);
      return withNotes(lines.join("\n"), [`${r.value.totalMatches} matches in ${r.value.totalFiles} files`], r.value);
    }
    case "content": {
      if (r.value.matches.length === 0) return "";
      const blocks = r.value.matches.map((file) =>
        [
          file.file,
          ...file.matches.map((m) => `${m.lineNumber}${m.isContextLine ? "-" : ":"}${m.content}${m.contentTruncated ? " [line cut]" : ""}`),
        ].join("\n"),
      );
      return withNotes(blocks.join("\n\n"), [`${r.value.totalMatchedLines} matching lines`], r.value);
    }
    case undefined:
      return "";
  }
}

function withNotes(
  body: string,
  summary: string[],
  flags: { clientTruncated: boolean; ripgrepTruncated: boolean; headLimitApplied?: number },
): string {
  const notes = [...summary];
  if (flags.headLimitApplied !== undefined) notes.push(`limited to the first ${flags.headLimitApplied} by head_limit`);
  if (flags.clientTruncated || flags.ripgrepTruncated)
    notes.push("results were cut off; narrow the search with path, glob or type to see the rest");
  return `${body}\n\n(${notes.join("; ")})`;
}

/** Every file path in a result, whatever its output mode (Glob asks for files). */
export function resultFiles(result: GrepSuccess): { files: string[]; truncated: { client: boolean; ripgrep: boolean } } {
  const files: string[] = [];
  const truncated = { client: false, ripgrep: false };
  for (const union of Object.values(result.workspaceResults)) {
    const r = union.result;
    if (r.case === undefined) continue;
    truncated.client ||= r.value.clientTruncated;
    truncated.ripgrep ||= r.value.ripgrepTruncated;
    if (r.case === "files") files.push(...r.value.files);
    else if (r.case === "count") files.push(...r.value.counts.map((c) => c.file));
    else files.push(...r.value.matches.map((m) => m.file));
  }
  return { files, truncated };
}
