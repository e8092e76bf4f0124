// A short, stable fingerprint of a text (FNV-1a, 32 bits per seed, as many seeds as the length
// asks): for ids that must be the same wherever they are computed and for telling versions
// of a value apart. Not a secret's protection: a hash no attacker should be able to invert
// is SHA-256 through WebCrypto, which cannot run synchronously.
export function fingerprint(text: string, hexChars: number): string {
  let out = "";
  for (let seed = 0; out.length < hexChars; seed++) {
    let hash = (0x811c9dc5 ^ Math.imul(seed, 0x9e3779b1)) >>> 0;
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    out += hash.toString(16).padStart(8, "0");
  }
  return out.slice(0, hexChars);
}
