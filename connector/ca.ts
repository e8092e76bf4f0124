// The connector's own certificate authority (docs/connector.md#the-ca): created
// on first run in the user's config folder, reused after. `ca.key` is private to
// the user (mode 0600, created with that mode and renamed into place, so no
// other user can ever read a partial file); a key file that others can read is
// refused. The CA is name-constrained to the routed hosts, so even a stolen key
// cannot mint a certificate the OS accepts for any other site.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import forge from "node-forge";
import { ROUTED_HOSTS } from "./routes.ts";

export interface CertificateAuthority {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
  certPem: string;
  certPath: string;
  keyPath: string;
  /** True when this start created the files. */
  created: boolean;
}

/** Raised for a CA folder the connector will not use; the message says how to fix it. */
export class CaError extends Error {}

const CA_VALIDITY_YEARS = 10;
const CA_COMMON_NAME = "byok-edge connector CA";

/** The per-OS config folder: XDG on Linux, Application Support on macOS, %APPDATA% on Windows. */
export function defaultConfigDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === "win32") return join(env.APPDATA ?? join(homedir(), "AppData", "Roaming"), "byok-edge", "connector");
  if (platform === "darwin") return join(homedir(), "Library", "Application Support", "byok-edge", "connector");
  const xdg = env.XDG_CONFIG_HOME;
  return join(xdg?.startsWith("/") ? xdg : join(homedir(), ".config"), "byok-edge", "connector");
}

export function loadOrCreateCa(dir: string, hosts: readonly string[] = ROUTED_HOSTS): CertificateAuthority {
  const keyPath = join(dir, "ca.key");
  const certPath = join(dir, "ca.pem");
  if (existsSync(keyPath)) return load(keyPath, certPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { cert, key, certPem, keyPem } = generate(hosts);
  // The certificate first: a crash between the two leaves no key, and the next start creates both anew.
  writeAtomically(certPath, certPem, 0o644);
  writeAtomically(keyPath, keyPem, 0o600);
  return { cert, key, certPem, certPath, keyPath, created: true };
}

function load(keyPath: string, certPath: string): CertificateAuthority {
  if (process.platform !== "win32") {
    const st = statSync(keyPath);
    if ((st.mode & 0o077) !== 0) {
      throw new CaError(
        `${keyPath} can be read by other users (mode ${(st.mode & 0o777).toString(8)}); the connector will not use it.\n` +
          `Fix: chmod 600 '${keyPath}' (or delete the folder to create a new CA, and trust the new one).`,
      );
    }
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) {
      throw new CaError(`${keyPath} belongs to another user (uid ${st.uid}); the connector will not use it.`);
    }
  }
  if (!existsSync(certPath)) {
    throw new CaError(`${keyPath} exists but ${certPath} does not. Delete both to create a new CA (and trust the new one).`);
  }
  const certPem = readFileSync(certPath, "utf8");
  let cert: forge.pki.Certificate;
  let key: forge.pki.rsa.PrivateKey;
  try {
    cert = forge.pki.certificateFromPem(certPem);
    key = forge.pki.privateKeyFromPem(readFileSync(keyPath, "utf8")) as forge.pki.rsa.PrivateKey;
  } catch {
    throw new CaError(`${certPath} or ${keyPath} is not a readable PEM certificate/key. Delete both to create a new CA.`);
  }
  const pub = cert.publicKey as forge.pki.rsa.PublicKey;
  if (pub.n.compareTo(key.n) !== 0 || pub.e.compareTo(key.e) !== 0) {
    throw new CaError(`${certPath} does not belong to ${keyPath}. Delete both to create a new CA (and trust the new one).`);
  }
  return { cert, key, certPem, certPath, keyPath, created: false };
}

function generate(hosts: readonly string[]) {
  // Node's native key generation; forge only builds and signs the certificate.
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 3072 });
  const keyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const key = forge.pki.privateKeyFromPem(keyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = serialNumber();
  const now = new Date();
  cert.validity.notBefore = new Date(now.getTime() - 24 * 3600_000);
  cert.validity.notAfter = new Date(now.getTime());
  cert.validity.notAfter.setFullYear(now.getFullYear() + CA_VALIDITY_YEARS);
  const name = [
    { name: "commonName", value: `${CA_COMMON_NAME} (${now.toISOString().slice(0, 10)})` },
    { name: "organizationName", value: "byok-edge" },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: "basicConstraints", cA: true, pathLenConstraint: 0, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
    nameConstraints(hosts),
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { cert, key, certPem: forge.pki.certificateToPem(cert), keyPem };
}

/**
 * RFC 5280 NameConstraints (critical): permitted dNSName subtrees for exactly
 * `hosts` (a name also covers its subdomains), and every IPv4 and IPv6 address excluded.
 */
function nameConstraints(hosts: readonly string[]) {
  const { asn1 } = forge;
  const subtree = (generalName: forge.asn1.Asn1) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [generalName]);
  const dns = (host: string) => asn1.create(asn1.Class.CONTEXT_SPECIFIC, 2, false, host);
  const ip = (bytes: number) => asn1.create(asn1.Class.CONTEXT_SPECIFIC, 7, false, "\0".repeat(bytes * 2));
  const value = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(
      asn1.Class.CONTEXT_SPECIFIC,
      0,
      true,
      hosts.map((h) => subtree(dns(h))),
    ),
    asn1.create(asn1.Class.CONTEXT_SPECIFIC, 1, true, [subtree(ip(4)), subtree(ip(16))]),
  ]);
  return { id: "2.5.29.30", critical: true, value };
}

/** A positive random serial (hex, high bit clear). */
export function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString("hex");
}

/** Writes a temporary file created with `mode` (never wider), then renames it into place. */
function writeAtomically(path: string, content: string, mode: number): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(tmp, "wx", mode);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    chmodSync(tmp, mode); // the umask may have narrowed it; never widened past `mode`
    renameSync(tmp, path);
  } catch (error) {
    unlinkSync(tmp);
    throw error;
  }
}
