// SSRF guard for upstream base URLs (models, stored credentials, web search): without
// BYOK_ALLOW_PRIVATE_UPSTREAMS only https to public hosts is allowed. The guard judges
// the name and address as written; see docs/outbound-safety.md for what it cannot see.
import ipaddr from "ipaddr.js";

/** Where the setting goes: the refusal reaches whoever typed the URL, often in the dashboard, far from the server's files. */
const HOW_TO_ALLOW =
  "the server allows such URLs only with BYOK_ALLOW_PRIVATE_UPSTREAMS=true: a local npm run dev sets it in the .dev.vars it writes; a deployment needs it among its vars";

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
  // The URL parser has already turned every IPv4 spelling (hex, octal, short, decimal) into a.b.c.d.
  const why = whyNotPublic(url.hostname);
  if (why) {
    return `base_url points at a loopback or private address (${url.hostname}: ${why}); ${HOW_TO_ALLOW}`;
  }
  if (url.protocol !== "https:") return "base_url must use https (plain http is only allowed with BYOK_ALLOW_PRIVATE_UPSTREAMS=true)";
  return undefined;
}

/** Names that only resolve inside a network, or are reserved and never resolve publicly. */
const INTERNAL_SUFFIXES = [
  "cluster.local",
  "local",
  "localdomain",
  "lan",
  "home.arpa",
  "home",
  "arpa",
  "internal",
  "intranet",
  "corp",
  "private",
  "svc",
];

/** Public wildcard-DNS services: a name under them resolves to the address written in it (10.0.0.1.nip.io). */
const ADDRESS_DNS_DOMAINS = ["nip.io", "sslip.io", "xip.io", "traefik.me"];

/** Public domains every name under which resolves to loopback. */
const LOOPBACK_DNS_DOMAINS = ["localtest.me", "lvh.me", "vcap.me", "fuf.me", "localho.st", "lacolhost.com", "localhost.direct"];

/** Why the host is not a public destination, or undefined when it is. */
function whyNotPublic(hostname: string): string | undefined {
  const host = hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.+$/, "")
    .toLowerCase();
  if (ipaddr.isValid(host)) return whyAddressNotPublic(ipaddr.parse(host));
  const under = (domain: string) => host === domain || host.endsWith(`.${domain}`);
  if (under("localhost")) return "a localhost name";
  if (!host.includes(".")) return "a single-label name";
  const suffix = INTERNAL_SUFFIXES.find(under);
  if (suffix) return `the internal name suffix .${suffix}`;
  const spelled = ADDRESS_DNS_DOMAINS.find(under);
  if (spelled) return `${spelled} names resolve to the address written in them`;
  const loopback = LOOPBACK_DNS_DOMAINS.find(under);
  if (loopback) return `${loopback} names resolve to loopback`;
  return whyEmbeddedAddressNotPublic(host);
}

function whyAddressNotPublic(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (address instanceof ipaddr.IPv6) {
    const embedded = embeddedIpv4(address);
    if (embedded) {
      const why = embedded.addresses.map(whyAddressNotPublic).find((w) => w !== undefined);
      return why && `${embedded.form} of ${why}`;
    }
  }
  // Anything in a special-purpose range (loopback, private, link-local, CGNAT, site-local, reserved…) is not "unicast".
  const range = address.range();
  if (range === "unicast") return undefined;
  return range === "linkLocal" && address.kind() === "ipv4" ? "a link-local address (cloud metadata lives here)" : describeRange(range);
}

/**
 * The IPv4 addresses an IPv6 address carries to the IPv4 internet: IPv4-mapped, -compatible and
 * -translated (the last 32 bits), NAT64 (64:ff9b::/96), 6to4 (bits 16–47) and Teredo (the
 * server, and the client's address stored inverted in the last 32 bits).
 */
function embeddedIpv4(address: ipaddr.IPv6): { form: string; addresses: ipaddr.IPv4[] } | undefined {
  const p = address.parts as [number, number, number, number, number, number, number, number];
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  const last = v4(p[6], p[7]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return { form: "an IPv4-mapped form", addresses: [last] };
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return { form: "an IPv4-translated form", addresses: [last] };
  // :: and ::1 are judged as themselves; the rest of ::/96 is the deprecated IPv4-compatible form.
  if (zeros(0, 6) && (p[6] !== 0 || p[7] > 1)) return { form: "an IPv4-compatible form", addresses: [last] };
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return { form: "a NAT64 form", addresses: [last] };
  if (p[0] === 0x2002) return { form: "a 6to4 form", addresses: [v4(p[1], p[2])] };
  if (p[0] === 0x2001 && p[1] === 0) return { form: "a Teredo form", addresses: [v4(p[2], p[3]), v4(~p[6] & 0xffff, ~p[7] & 0xffff)] };
  return undefined;
}

/** Names that spell an address for wildcard DNS: "10.0.0.1.example.com", "app-10-0-0-1.example.com". */
function whyEmbeddedAddressNotPublic(host: string): string | undefined {
  const labels = host.split(".");
  const candidates: string[] = [];
  for (let i = 0; i + 4 <= labels.length; i++) candidates.push(labels.slice(i, i + 4).join("."));
  for (const match of host.matchAll(/(?<![0-9])\d{1,3}-\d{1,3}-\d{1,3}-\d{1,3}(?![0-9])/g)) candidates.push(match[0].replaceAll("-", "."));
  for (const candidate of candidates) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(candidate)) continue;
    const why = whyAddressNotPublic(ipaddr.IPv4.parse(candidate));
    if (why) return `the name spells ${candidate}, ${why}`;
  }
  return undefined;
}

function describeRange(range: string): string {
  switch (range) {
    case "loopback":
      return "a loopback address";
    case "private":
      return "a private address";
    case "uniqueLocal":
      return "a unique local (private) address";
    case "linkLocal":
      return "a link-local address";
    case "carrierGradeNat":
      return "a carrier-grade NAT address";
    case "deprecatedSiteLocal":
      return "a site-local address";
    case "rfc6052":
      return "a local-use NAT64 address";
    case "unspecified":
      return "the unspecified address";
    case "multicast":
    case "broadcast":
      return "a multicast or broadcast address";
    default:
      return `a special-purpose address (${range})`;
  }
}
