// Removing keys from text that may reach the client or storage (provider error
// messages): not only the exact key, since providers echo a prefix ("sk-proj-abc…")
// or an encoded copy (a Basic header in base64, a URL-encoded query). Every run of
// at least RUN_MIN_CHARS characters taken from a key or one of its encodings goes.
// docs/providers.md#what-every-provider-gets
import { toBase64, toBase64Url, toHex } from "../core/bytes.ts";

/** Shorter runs of a key's characters could be ordinary words; a key's first 8 characters already identify it. */
const RUN_MIN_CHARS = 8;
/** A secret shorter than this is removed only where it appears whole; shorter still, not at all. */
const SECRET_MIN_CHARS = 4;

/**
 * `text` with every secret replaced by `replacement`: each secret whole, and every run of
 * ≥ 8 characters found in the secret or in its base64 (all three byte alignments),
 * base64url, hex (either case) or percent-encoded form (reserved characters only, or every byte), so prefixes, suffixes and
 * middles of any of them go too.
 */
export function redactSecrets(text: string, secrets: readonly string[], replacement: string): string {
  let out = text;
  const needles: string[] = [];
  for (const secret of secrets) {
    if (secret.length < SECRET_MIN_CHARS) continue;
    if (secret.length < RUN_MIN_CHARS) out = out.split(secret).join(replacement);
    else needles.push(...encodedForms(secret));
  }
  return needles.length === 0 ? out : replaceRuns(out, needles, replacement);
}

/** @internal The secret and its encodings, each at least RUN_MIN_CHARS long. */
export function encodedForms(secret: string): string[] {
  const bytes = new TextEncoder().encode(secret);
  const forms = new Set([secret, toHex(bytes), toHex(bytes).toUpperCase()]);
  const percent = encodeURIComponent(secret);
  forms.add(percent);
  forms.add(percent.replace(/%[0-9A-F]{2}/g, (pair) => pair.toLowerCase()));
  // Every byte escaped, as some servers echo a query string or a form body.
  const everyByte = Array.from(bytes, (b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("");
  forms.add(everyByte);
  forms.add(everyByte.toLowerCase());
  // Inside a longer encoded text the key starts at any byte offset; only whole 3-byte groups of
  // key bytes encode the same everywhere, so each alignment keeps just those.
  for (let shift = 0; shift < 3; shift++) {
    const whole = bytes.subarray(shift, shift + Math.floor((bytes.length - shift) / 3) * 3);
    forms.add(toBase64(whole));
    forms.add(toBase64Url(whole));
  }
  return [...forms].filter((form) => form.length >= RUN_MIN_CHARS);
}

/**
 * Replaces each maximal run of `text` that occurs in some needle and is at least RUN_MIN_CHARS
 * long. Linear in the text: each window is looked up once, and a match is extended from the
 * places its window occurs in the needles (a provider picks the text, so no quadratic search).
 */
function replaceRuns(text: string, needles: readonly string[], replacement: string): string {
  const places = new Map<string, { needle: string; at: number }[]>();
  for (const needle of needles) {
    for (let at = 0; at + RUN_MIN_CHARS <= needle.length; at++) {
      const window = needle.slice(at, at + RUN_MIN_CHARS);
      const list = places.get(window);
      if (list) list.push({ needle, at });
      else places.set(window, [{ needle, at }]);
    }
  }
  let out = "";
  let kept = 0;
  let i = 0;
  while (i + RUN_MIN_CHARS <= text.length) {
    const found = places.get(text.slice(i, i + RUN_MIN_CHARS));
    if (!found) {
      i++;
      continue;
    }
    let end = i + RUN_MIN_CHARS;
    for (const { needle, at } of found) {
      let length = RUN_MIN_CHARS;
      while (i + length < text.length && at + length < needle.length && text[i + length] === needle[at + length]) length++;
      end = Math.max(end, i + length);
    }
    out += text.slice(kept, i) + replacement;
    kept = end;
    i = end;
  }
  return out + text.slice(kept);
}
