// A local stand-in for "the real host" behind the connector: an HTTPS server with
// a certificate from its own test CA (standing in for a public CA), which records
// every request exactly (headers, body bytes) and answers with a recognisable
// body. The connector's tests and e2e/connector.ts point passthrough traffic at it.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import forge from "node-forge";

export interface StandInPki {
  caPem: string;
  /** A server key and certificate (chain) for `hosts`. */
  issue(hosts: string[]): { key: string; cert: string };
}

function rsaKey() {
  const pem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return { pem, key: forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey };
}

function baseCert(key: forge.pki.rsa.PrivateKey, cn: string) {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = `01${randomBytes(8).toString("hex")}`;
  cert.validity.notBefore = new Date(Date.now() - 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 24 * 3600_000);
  cert.setSubject([{ name: "commonName", value: cn }]);
  return cert;
}

/** `sign` with another CA key makes a certificate for a host that CA should not be able to vouch for. */
export function issueWith(caCert: forge.pki.Certificate, caKey: forge.pki.rsa.PrivateKey, hosts: string[]): { key: string; cert: string } {
  const { pem, key } = rsaKey();
  const cert = baseCert(key, hosts[0]!);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: hosts.map((value) => ({ type: 2, value })) },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { key: pem, cert: forge.pki.certificateToPem(cert) };
}

export function makeStandInPki(): StandInPki {
  const { key } = rsaKey();
  const ca = baseCert(key, "stand-in public CA");
  ca.setIssuer(ca.subject.attributes);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, critical: true },
  ]);
  ca.sign(key, forge.md.sha256.create());
  return { caPem: forge.pki.certificateToPem(ca), issue: (hosts) => issueWith(ca, key, hosts) };
}

interface RecordedHttpRequest {
  /** The SNI name the client asked for. */
  servername: string | undefined;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface TlsStandIn {
  port: number;
  requests: RecordedHttpRequest[];
  close(): Promise<void>;
}

/** The stand-in's answer to every request: 200, `x-stand-in: real`, and the body `real:<path>`. */
export async function startTlsStandIn(pki: StandInPki, hosts: string[]): Promise<TlsStandIn> {
  const requests: RecordedHttpRequest[] = [];
  const server = createServer({ ...pki.issue(hosts) }, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const servername = (req.socket as { servername?: string | false }).servername;
    requests.push({
      servername: servername || undefined,
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks),
    });
    res.writeHead(200, { "content-type": "application/proto", "x-stand-in": "real" });
    res.end(`real:${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
