// Which custom headers a model or credential may add to its provider calls: not the
// credential and framing headers byok-edge sets itself, nor hop-by-hop ones
// (docs/outbound-safety.md#custom-headers).

/**
 * Set by byok-edge or by the HTTP layer, or another provider's key header (Azure's api-key, Google's
 * x-goog-api-key): a key belongs in the encrypted credential, never in stored plain-text headers.
 */
const KEY_HEADERS = new Set(["authorization", "x-api-key", "api-key", "x-goog-api-key"]);
const RESERVED = new Set(["host", "content-length", "cookie"]);

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, not the request. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "te", "trailer", "transfer-encoding", "upgrade"]);

/** Header names per RFC 9110 (a token); anything else fetch would refuse later, less clearly. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why these custom headers cannot be used, naming the first bad one; undefined when all are fine.
 * `keys`: the headers are themselves secrets sealed at rest (a team's collector's), so they may
 * carry a key (authorization, x-api-key); a provider's may not, its key is the credential's.
 */
export function checkCustomHeaders(headers: Readonly<Record<string, string>>, options: { keys?: boolean } = {}): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    // Not echoed: a malformed name may be a pasted secret.
    if (!TOKEN.test(name)) return "headers: a header name is not a valid HTTP header name (letters, digits and !#$%&'*+.^_`|~- only)";
    if (RESERVED.has(lower) || (KEY_HEADERS.has(lower) && !options.keys)) {
      return `headers: "${lower}" cannot be set; byok-edge sets it from the credential and the request`;
    }
    if (HOP_BY_HOP.has(lower) || lower.startsWith("proxy-")) return `headers: "${lower}" is a hop-by-hop header and cannot be set`;
    // CR or LF would let a value smuggle in a header of its own.
    if (/[\r\n\0]/.test(value)) return `headers: the value of "${lower}" contains a line break or NUL`;
  }
  return undefined;
}
