// SSRF guard for configured provider base URLs: without
// BYOK_ALLOW_PRIVATE_UPSTREAMS only https to public hosts is allowed.

export function checkUpstreamUrl(raw: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "base_url is not a valid URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "base_url must use http or https";
  if (url.username || url.password) return "base_url must not contain credentials; use api_key or headers";
  if (allowPrivate) return undefined;
  if (isPrivateHost(url.hostname)) {
    return `base_url points at a loopback or private address (${url.hostname}); set BYOK_ALLOW_PRIVATE_UPSTREAMS=true to allow it`;
  }
  if (url.protocol !== "https:") return "base_url must use https (plain http is only allowed with BYOK_ALLOW_PRIVATE_UPSTREAMS=true)";
  return undefined;
}

function isPrivateHost(hostname: string): boolean {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal")) {
    return true;
  }
  const v4 = parseIpv4(host);
  if (v4) {
    const [a, b] = v4;
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 198 && (b === 18 || b === 19)) ||
      a >= 224
    );
  }
  if (host.includes(":")) {
    if (host === "::" || host === "::1") return true;
    // Unique local (fc00::/7) and link-local (fe80::/10).
    if (/^f[cd]/.test(host) || /^fe[89ab]/.test(host)) return true;
    // IPv4-mapped (::ffff:a.b.c.d, which URL parsing turns into ::ffff:xxxx:xxxx) and NAT64.
    const mapped = host.match(/^(?:::ffff:|64:ff9b::)(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/);
    if (mapped?.[1]) return isPrivateHost(mapped[1]);
    if (mapped?.[2] && mapped[3]) {
      const hi = Number.parseInt(mapped[2], 16);
      const lo = Number.parseInt(mapped[3], 16);
      return isPrivateHost(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
    }
  }
  return false;
}

function parseIpv4(host: string): [number, number, number, number] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const n = parts.map(Number);
  if (n.some((x) => x > 255)) return undefined;
  return n as [number, number, number, number];
}
