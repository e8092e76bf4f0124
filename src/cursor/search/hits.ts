// What of a backend's hits reaches the model and the card: plain text (Brave
// marks matches with <strong>, many escape entities), bounded, one hit per URL.
import type { SearchHit } from "./search-types.ts";

const TITLE_MAX_CHARS = 200;
const SNIPPET_MAX_CHARS = 500;
const URL_MAX_CHARS = 1000;

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

export function cleanHits(hits: SearchHit[], maxResults: number): SearchHit[] {
  const seen = new Set<string>();
  const out: SearchHit[] = [];
  for (const hit of hits) {
    if (out.length >= maxResults) break;
    const url = hit.url.trim();
    if (!/^https?:\/\//i.test(url) || url.length > URL_MAX_CHARS || seen.has(url)) continue;
    seen.add(url);
    out.push({ title: bounded(plainText(hit.title), TITLE_MAX_CHARS), url, snippet: bounded(plainText(hit.snippet), SNIPPET_MAX_CHARS) });
  }
  return out;
}

/** Tags dropped, the common entities decoded, whitespace collapsed. */
function plainText(text: string): string {
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => decodeEntity(name) ?? entity)
    .replace(/\s+/g, " ")
    .trim();
}

function decodeEntity(name: string): string | undefined {
  if (name[0] !== "#") return NAMED_ENTITIES[name.toLowerCase()];
  const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

function bounded(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars - 1).trimEnd()}…` : text;
}
