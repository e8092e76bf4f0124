// The CAs the connector trusts for the real Cursor hosts, on the paths it passes
// through (docs/connector.md#what-goes-where): Node's bundled Mozilla roots and
// NODE_EXTRA_CA_CERTS, plus the OS's certificate store when the running Node can
// read it (`tls.getCACertificates("system")`, Node ≥ 22.15 / 23.8), so a network
// that inspects TLS with a CA installed in the OS store still works. The bundled
// bin also runs on Node 20, which has no such call: there it is Node's own
// default, the bundled roots and NODE_EXTRA_CA_CERTS.
// A namespace import: a named import of a missing export would stop the bin from loading on Node 20.
import * as tls from "node:tls";

/** What is used of node:tls: `getCACertificates` is missing on Node 20. */
interface NodeTls {
  getCACertificates?: (type: "default" | "system") => string[];
}

/**
 * The `ca` option for TLS to a real host, with `extra` (PEM) trusted on top;
 * undefined means Node's default trust, which already is the whole answer there.
 * (`node` is a parameter so the tests can stand in for Node 20.)
 */
export function upstreamCa(extra: readonly string[] = [], node: NodeTls = tls): string[] | undefined {
  const getCa = node.getCACertificates;
  if (getCa) {
    let system: string[] = [];
    try {
      system = getCa("system");
    } catch {
      // An OS store that cannot be read leaves Node's own roots, as on Node 20.
    }
    // "default" is the bundled roots and NODE_EXTRA_CA_CERTS (and the OS store under --use-system-ca).
    return [...new Set([...getCa("default"), ...system, ...extra])];
  }
  return extra.length > 0 ? [...tls.rootCertificates, ...extra] : undefined;
}
