// Key redaction as properties over random keys: whatever form a provider echoes a key in
// (whole, a prefix or piece of ≥ 8 characters, base64 at any alignment, base64url, hex,
// percent-encoded, every byte percent-escaped, or a prefix of those), nothing of it of 8 characters survives, and
// text around it is kept.
import { describe, expect, it } from "vitest";
import { encodedForms, redactSecrets } from "../../../src/provider/redact.ts";
import { seededRandom } from "../../support/seeded-random.ts";

const R = "[redacted]";
const CASES = 400;

const KEY_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const ODD_CHARS = `${KEY_CHARS}+/=.:~!é`;

function randomKey(next: () => number): string {
  const chars = next() < 0.8 ? KEY_CHARS : ODD_CHARS; // some keys need percent-encoding
  const length = 16 + Math.floor(next() * 100);
  let key = next() < 0.5 ? "sk-" : "";
  while (key.length < length) key += chars[Math.floor(next() * chars.length)];
  return key;
}

const between = (next: () => number, min: number, max: number) => min + Math.floor(next() * (max - min + 1));
const bytesOf = (s: string) => new TextEncoder().encode(s);
const b64 = (s: string) => btoa(String.fromCharCode(...bytesOf(s)));
const b64url = (s: string) => b64(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
const everyByteEscaped = (s: string) => [...bytesOf(s)].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("");
const hex = (s: string) => [...bytesOf(s)].map((b) => b.toString(16).padStart(2, "0")).join("");

interface Echo {
  how: string;
  /** What the provider wrote. */
  text: string;
  /** The part of it that depends on the key alone (an encoding's ends mix in neighbouring bytes). */
  core: string;
}

/** The ways a provider has been seen (or could be expected) to echo a key. */
function echoes(key: string, next: () => number): Echo[] {
  const prefix = key.slice(0, between(next, 8, key.length));
  const start = between(next, 0, key.length - 8);
  const piece = key.slice(start, between(next, start + 8, key.length));
  const lead = "user:xy".slice(0, between(next, 0, 7)); // shifts the key's byte alignment
  // Base64 groups before the key's first whole group hold the lead; the last group holds padding.
  const from = Math.ceil(bytesOf(lead).length / 3) * 4;
  const encoded = (how: string, text: string) => ({ how, text, core: text.slice(from, text.length - 4) });
  return [
    { how: "whole", text: key, core: key },
    { how: "prefix", text: prefix, core: prefix },
    { how: "piece", text: piece, core: piece },
    encoded("base64", b64(lead + key)),
    encoded("base64 of a prefix", b64(lead + key.slice(0, Math.max(12, prefix.length)))),
    encoded("base64url", b64url(lead + key)),
    { how: "hex", text: hex(key), core: hex(key) },
    { how: "HEX", text: hex(key).toUpperCase(), core: hex(key).toUpperCase() },
    { how: "hex of a prefix", text: hex(prefix), core: hex(prefix) },
    { how: "percent-encoded", text: encodeURIComponent(key), core: encodeURIComponent(key) },
    { how: "percent-encoded prefix", text: encodeURIComponent(prefix), core: encodeURIComponent(prefix) },
    { how: "every byte percent-escaped", text: everyByteEscaped(key), core: everyByteEscaped(key) },
    { how: "every byte percent-escaped, lower case", text: everyByteEscaped(key).toLowerCase(), core: everyByteEscaped(key).toLowerCase() },
  ];
}

/** Every 8-character piece of `core` that is still in `out`. */
function survivors(out: string, core: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 8 <= core.length; i++) if (out.includes(core.slice(i, i + 8))) found.push(core.slice(i, i + 8));
  return found;
}

describe("redactSecrets()", () => {
  it("leaves nothing of 8 characters of any echo form of a random key, and keeps the words around it", () => {
    const next = seededRandom(13);
    for (let n = 0; n < CASES; n++) {
      const key = randomKey(next);
      for (const echo of echoes(key, next)) {
        const out = redactSecrets(`bad key (${echo.text}) for org-7`, [key], R);
        expect(survivors(out, echo.core), `case ${n}, ${echo.how} of ${JSON.stringify(key)}`).toEqual([]);
        expect(out, `case ${n}, ${echo.how}`).toMatch(/^bad key \(.*\[redacted\].*\) for org-7$/);
      }
    }
  });

  it("redacts every secret in play at once, wherever each appears", () => {
    const next = seededRandom(7);
    for (let n = 0; n < CASES / 4; n++) {
      const keys = [randomKey(next), randomKey(next), randomKey(next)];
      const echoed = keys.map((key, i) => echoes(key, next)[i * 3]!); // whole, base64, hex
      const out = redactSecrets(echoed.map((echo, i) => `k${i}=${echo.text}`).join("; "), keys, R);
      for (const echo of echoed) expect(survivors(out, echo.core), `case ${n}, ${echo.how}`).toEqual([]);
      expect(out).toMatch(/^k0=\[redacted\]; k1=.*\[redacted\].*; k2=\[redacted\]$/);
    }
  });

  it("leaves text without a key unchanged, even when it shares short pieces with the key", () => {
    const next = seededRandom(99);
    const key = "fake-live-Abcdef0123456789";
    for (let n = 0; n < CASES; n++) {
      const words = Array.from({ length: 12 }, () => {
        const start = between(next, 0, key.length - 1);
        return key.slice(start, start + between(next, 1, 7));
      });
      const text = `Rate limit reached for gpt-4o in organization org-x: ${words.join(" ")}`;
      expect(redactSecrets(text, [key], R)).toBe(text);
    }
  });

  it("redacts a 64 KiB error body made of key pieces and encodings (within the unit test's time bound)", () => {
    const next = seededRandom(5);
    const key = randomKey(next);
    const forms = echoes(key, next);
    let body = "";
    while (body.length < 64 * 1024) body += `${forms[Math.floor(next() * forms.length)]!.text} `;
    const out = redactSecrets(body, [key], R);
    for (const echo of forms) expect(survivors(out, echo.core), echo.how).toEqual([]);
  });

  it("removes a short secret (4 to 7 characters) only where it appears whole, and ignores shorter ones", () => {
    expect(redactSecrets("token abcd1 and abcd", ["abcd1", "ab"], R)).toBe("token [redacted] and abcd");
  });

  it("takes every encoding at each of the three base64 alignments", () => {
    const forms = encodedForms("sk-0123456789abcdef");
    expect(forms).toContain("sk-0123456789abcdef");
    expect(forms).toContain(hex("sk-0123456789abcdef"));
    expect(forms).toContain(b64("sk-0123456789abcdef").replace(/=+$/, "").slice(0, 24));
    expect(forms).toContain(b64("k-0123456789abcdef"));
    expect(forms).toContain(b64("-0123456789abcdef".slice(0, 15)));
  });
});
