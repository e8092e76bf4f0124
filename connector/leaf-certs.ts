// Server certificates for the routed hosts, signed by the connector's CA, made
// in memory on first use and cached for the life of the process (never written
// to disk). One RSA key serves every leaf of a process. Only a routed host ever
// gets one (docs/connector.md#the-ca).
import { generateKeyPairSync } from "node:crypto";
import { createSecureContext, type SecureContext } from "node:tls";
import forge from "node-forge";
import { type CertificateAuthority, serialNumber } from "./ca.ts";

/** Below Apple's 825-day limit for certificates from a user-trusted CA. */
const LEAF_VALIDITY_DAYS = 397;

export class LeafCerts {
  readonly #ca: CertificateAuthority;
  readonly #hosts: readonly string[];
  readonly #cache = new Map<string, SecureContext>();
  #key: { pem: string; forge: forge.pki.rsa.PrivateKey } | undefined;

  constructor(ca: CertificateAuthority, hosts: readonly string[]) {
    this.#ca = ca;
    this.#hosts = hosts;
  }

  /** A TLS context for `host` (HTTP/1.1 only is set by the caller); throws for a host that is not routed. */
  contextFor(host: string): SecureContext {
    const name = host.toLowerCase();
    if (!this.#hosts.includes(name)) throw new Error(`refusing to issue a certificate for ${name}: not a routed host`);
    let context = this.#cache.get(name);
    if (!context) {
      const key = this.#leafKey();
      context = createSecureContext({ key: key.pem, cert: this.#issue(name, key.forge) });
      this.#cache.set(name, context);
    }
    return context;
  }

  #leafKey() {
    if (!this.#key) {
      const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
      this.#key = { pem, forge: forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey };
    }
    return this.#key;
  }

  /** PEM chain: the leaf, then the CA (so a client trusting the CA can build the path). */
  #issue(host: string, key: forge.pki.rsa.PrivateKey): string {
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
    cert.serialNumber = serialNumber();
    const now = Date.now();
    cert.validity.notBefore = new Date(now - 24 * 3600_000);
    cert.validity.notAfter = new Date(now + LEAF_VALIDITY_DAYS * 24 * 3600_000);
    cert.setSubject([{ name: "commonName", value: host }]);
    cert.setIssuer(this.#ca.cert.subject.attributes);
    cert.setExtensions([
      { name: "basicConstraints", cA: false, critical: true },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
      { name: "extKeyUsage", serverAuth: true },
      { name: "subjectAltName", altNames: [{ type: 2, value: host }] },
      { name: "subjectKeyIdentifier" },
      { name: "authorityKeyIdentifier", keyIdentifier: this.#ca.cert.generateSubjectKeyIdentifier().getBytes() },
    ]);
    cert.sign(this.#ca.key, forge.md.sha256.create());
    return forge.pki.certificateToPem(cert) + this.#ca.certPem;
  }
}
