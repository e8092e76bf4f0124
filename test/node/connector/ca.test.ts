// The connector's CA (connector/ca.ts, docs/connector.md#the-ca): created once
// with a private key file, reused, refused when others can read the key, and
// unable to vouch for any host outside the routed set.
import { X509Certificate } from "node:crypto";
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CaError, defaultConfigDir, loadOrCreateCa } from "../../../connector/ca.ts";
import { LeafCerts } from "../../../connector/leaf-certs.ts";
import { ROUTED_HOSTS } from "../../../connector/routes.ts";
import { withTimeout } from "../../support/deferred.ts";
import { issueWith } from "../../support/tls-stand-in.ts";

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), "byok-conn-ca-")), "connector");
});
afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

/** What a TLS client trusting only the connector's CA makes of a server certificate for `host`. */
async function verifyAgainstCa(caPem: string, host: string, server: { key: string; cert: string }): Promise<string> {
  const https = createServer(server, (_req, res) => res.end());
  await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
  try {
    const port = (https.address() as AddressInfo).port;
    return await withTimeout(
      new Promise<string>((resolve) => {
        const socket = connect({ host: "127.0.0.1", port, servername: host, ca: [caPem] });
        socket.once("secureConnect", () => {
          socket.destroy();
          resolve("trusted");
        });
        socket.once("error", (error) => resolve(error.message));
      }),
      10_000,
      "the TLS handshake",
    );
  } finally {
    https.closeAllConnections();
    await new Promise((resolve) => https.close(resolve));
  }
}

describe("the connector's CA", () => {
  it("is created on first start with the key readable by its owner only and the certificate public", () => {
    const ca = loadOrCreateCa(dir);
    expect(ca.created).toBe(true);
    expect(statSync(ca.keyPath).mode & 0o777).toBe(0o600);
    expect(statSync(ca.certPath).mode & 0o777).toBe(0o644);
    expect(statSync(dir).mode & 0o077).toBe(0);
    const cert = new X509Certificate(readFileSync(ca.certPath));
    expect(cert.ca).toBe(true);
    expect(readFileSync(ca.certPath, "utf8")).not.toContain("PRIVATE KEY");
  });

  it("is reused on the second start", () => {
    const first = loadOrCreateCa(dir);
    const second = loadOrCreateCa(dir);
    expect(second.created).toBe(false);
    expect(second.certPem).toBe(first.certPem);
  });

  it("is refused when its key file is world-readable, saying how to fix it", () => {
    const { keyPath } = loadOrCreateCa(dir);
    chmodSync(keyPath, 0o644);
    expect(() => loadOrCreateCa(dir)).toThrow(CaError);
    expect(() => loadOrCreateCa(dir)).toThrow(`chmod 600 '${keyPath}'`);
    chmodSync(keyPath, 0o640);
    expect(() => loadOrCreateCa(dir)).toThrow(/other users/);
  });

  it("is refused when the certificate does not belong to the key", () => {
    const other = join(dir, "..", "other");
    loadOrCreateCa(dir);
    const { certPath } = loadOrCreateCa(other);
    rmSync(join(dir, "ca.pem"));
    expect(() => loadOrCreateCa(dir)).toThrow(/ca\.pem does not\./);
    copyFileSync(certPath, join(dir, "ca.pem"));
    expect(() => loadOrCreateCa(dir)).toThrow(/does not belong/);
  });

  it("lives in the per-OS config folder unless told otherwise", () => {
    expect(defaultConfigDir({ XDG_CONFIG_HOME: "/x/cfg" }, "linux")).toBe("/x/cfg/byok-edge/connector");
    expect(defaultConfigDir({}, "linux")).toMatch(/\.config\/byok-edge\/connector$/);
    expect(defaultConfigDir({}, "darwin")).toMatch(/Library\/Application Support\/byok-edge\/connector$/);
    expect(defaultConfigDir({ APPDATA: "C:\\Users\\u\\AppData\\Roaming" }, "win32")).toContain("byok-edge");
  });

  it("issues leaf certificates for the routed hosts only", async () => {
    const ca = loadOrCreateCa(dir);
    const leaves = new LeafCerts(ca, ROUTED_HOSTS);
    expect(leaves.contextFor("api2.cursor.sh")).toBe(leaves.contextFor("API2.cursor.sh"));
    expect(() => leaves.contextFor("example.com")).toThrow(/not a routed host/);
  });

  it("cannot vouch for another host even with its own key: the name constraints hold", async () => {
    const ca = loadOrCreateCa(dir);
    expect(await verifyAgainstCa(ca.certPem, "api2.cursor.sh", issueWith(ca.cert, ca.key, ["api2.cursor.sh"]))).toBe("trusted");
    const forged = issueWith(ca.cert, ca.key, ["example.com"]);
    expect(await verifyAgainstCa(ca.certPem, "example.com", forged)).toMatch(/permitted subtree violation/);
  });
});
