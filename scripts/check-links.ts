// Fails when a reference points nowhere: a `docs/<file>.md#<anchor>` in code, comments, config
// or docs, or a relative markdown link `[…](file.md#anchor)` / `[…](#anchor)` in a markdown
// file, whose file or heading does not exist; and a path of the project's own (`src/…`,
// `test/…`, …) named outside the tests that is not there (docs/testing.md#link-check).
// Anchors are GitHub's heading slugs (github-slugger), plus explicit `<a id="…">`.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative, resolve } from "node:path";
import GithubSlugger from "github-slugger";

const root = resolve(import.meta.dirname, "..");
const tracked = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f !== "" && existsSync(join(root, f)));
const TEXT = /\.(ts|tsx|mts|js|mjs|md|toml|json|yaml|yml|css|html)$|^\.ci\/run$|^\.dev\.vars\.example$/;
const SKIP = /^(bin|dashboard\/dist|migrations\/.*\/meta)\/|package-lock\.json$|\/gen\//;

/** A path under one of the project's folders; globs, placeholders and elisions are not paths. */
const PROJECT_PATH =
  /(?<![\w./-])((?:src|test|docs|scripts|bench|e2e|bridge|connector|lib|dashboard|migrations|prompt)\/[\w./-]*)(?![\w*<{…-])/g;

const anchorsByFile = new Map<string, Set<string> | null>();
/** The anchors of a markdown file (null when it does not exist). */
function anchorsOf(file: string): Set<string> | null {
  if (!anchorsByFile.has(file)) {
    const path = join(root, file);
    if (!existsSync(path)) anchorsByFile.set(file, null);
    else {
      const slugger = new GithubSlugger();
      const anchors = new Set<string>();
      let fenced = false;
      for (const line of readFileSync(path, "utf8").split("\n")) {
        if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
        if (fenced) continue;
        const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
        if (heading) anchors.add(slugger.slug(heading[1]!.replace(/`/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")));
        for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
      }
      anchorsByFile.set(file, anchors);
    }
  }
  return anchorsByFile.get(file) ?? null;
}

const problems: string[] = [];
function check(from: string, line: number, file: string, anchor: string | undefined, text: string): void {
  const anchors = anchorsOf(file);
  if (anchors === null) problems.push(`${from}:${line}: ${text}: no file ${file}`);
  else if (anchor !== undefined && !anchors.has(anchor)) problems.push(`${from}:${line}: ${text}: ${file} has no heading #${anchor}`);
}

for (const file of tracked) {
  if (!TEXT.test(file) || SKIP.test(file)) continue;
  const lines = readFileSync(join(root, file), "utf8").split("\n");
  const markdown = file.endsWith(".md");
  lines.forEach((text, i) => {
    // docs/<name>.md#anchor, written from the project's root (code, comments, config).
    for (const m of text.matchAll(/(?<![\w/.-])docs\/([\w./-]+?\.md)(?:#([\w-]+))?/g)) check(file, i + 1, `docs/${m[1]}`, m[2], m[0]);
    // Paths of the project named in prose or comments (tests name made-up paths as data).
    if (!file.startsWith("test/")) {
      for (const m of text.matchAll(PROJECT_PATH)) {
        const path = m[1]!.replace(/[/.]+$/, "");
        const fromDoc = markdown && existsSync(join(root, dirname(file), path));
        if (!existsSync(join(root, path)) && !fromDoc) problems.push(`${file}:${i + 1}: ${m[1]}: no such file or folder`);
      }
    }
    if (!markdown) return;
    // Relative links in markdown, outside code spans: [text](other.md#anchor "title"), [text](#anchor),
    // [text](../src/file.ts); a link to a markdown file is checked for its anchor too.
    for (const m of text.replace(/`[^`]*`/g, "").matchAll(/\]\((?![a-z]+:)([^)\s#]*)(?:#([\w-]+))?(?:\s+"[^"]*")?\)/g)) {
      const [link, path, anchor] = m as unknown as [string, string, string | undefined];
      if (path === "" && anchor === undefined) continue;
      const target = path === "" ? file : normalize(relative(root, resolve(root, dirname(file), path)));
      if (target.endsWith(".md")) check(file, i + 1, target, anchor, link);
      else if (!existsSync(join(root, target))) problems.push(`${file}:${i + 1}: ${link}: no file ${target}`);
    }
  });
}

if (problems.length > 0) {
  console.error(`Links to the docs that point nowhere (${problems.length}):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`links to the docs are all good (${anchorsByFile.size} markdown files read)`);
