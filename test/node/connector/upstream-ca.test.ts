// What the connector trusts for the real Cursor hosts (connector/upstream-ca.ts,
// docs/connector.md#what-goes-where): Node's own roots and the OS's store. The OS
// store is made real for a child process with SSL_CERT_FILE / SSL_CERT_DIR, which
// Node reads on Linux; the stand-in "real host" has a certificate only that store
// vouches for, as on a network that inspects TLS.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { connect as tlsConnect, rootCertificates } from "node:tls";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOrCreateCa } from "../../../connector/ca.ts";
import { upstreamCa } from "../../../connector/upstream-ca.ts";
import { withTimeout } from "../../support/deferred.ts";
import { readAll, requestThrough } from "../../support/proxy-client.ts";
import { makeStandInPki, type StandInPki, startTlsStandIn, type TlsStandIn } from "../../support/tls-stand-in.ts";

const WAIT_MS = 15_000;
const here = import.meta.dirname;
const module = (path: string) => pathToFileURL(resolve(here, path)).href;

/** The connector as `byok-connect` starts it (no test CA), with api2.cursor.sh's real host at the stand-in. */
const CHILD = `
const { loadOrCreateCa } = await import(${JSON.stringify(module("../../../connector/ca.ts"))});
const { startConnector } = await import(${JSON.stringify(module("../../../connector/proxy.ts"))});
const real = Number(process.env.REAL_PORT);
const connector = await startConnector({
  deploymentUrl: "http://127.0.0.1:9",
  token: "byok_unused",
  ca: loadOrCreateCa(process.env.CONFIG_DIR),
  port: 0,
  resolveUpstream: () => ({ host: "127.0.0.1", port: real }),
});
process.stdout.write(connector.port + "\\n");
`;

let dir: string;
let pki: StandInPki;
let realHost: TlsStandIn;
let connectorCa: string;
const children: ChildProcess[] = [];

/** Starts the connector in a child whose OS certificate store is exactly `storePem`; resolves with its port. */
async function connectorWithOsStore(name: string, storePem: string): Promise<number> {
  const certFile = join(dir, `${name}.pem`);
  const certDir = join(dir, `${name}.d`);
  writeFileSync(certFile, storePem);
  mkdirSync(certDir);
  // Only what the child needs (the project's ProcessEnv type lists the worker's variables too).
  const env = {
    PATH: process.env.PATH,
    CONFIG_DIR: join(dir, "config"),
    REAL_PORT: String(realHost.port),
    SSL_CERT_FILE: certFile,
    SSL_CERT_DIR: certDir,
  };
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
    env: env as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const stdout = child.stdout;
  let out = "";
  await withTimeout(
    new Promise<void>((res, rej) => {
      stdout.on("data", (d: Buffer) => {
        out += d;
        if (out.includes("\n")) res();
      });
      child.once("exit", (code: number | null) => rej(new Error(`the connector exited (${code})`)));
    }),
    WAIT_MS,
    "the connector's port",
  );
  return Number(out.trim());
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "byok-conn-trust-"));
  connectorCa = loadOrCreateCa(join(dir, "config")).certPem;
  pki = makeStandInPki();
  realHost = await startTlsStandIn(pki, ["api2.cursor.sh"]);
});

afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null) {
      child.kill();
      await once(child, "exit");
    }
  }
  await realHost.close();
  rmSync(dir, { recursive: true, force: true });
});

async function passthroughStatus(proxyPort: number): Promise<number | undefined> {
  const { response } = await requestThrough({
    proxyPort,
    host: "api2.cursor.sh",
    ca: [connectorCa],
    path: "/aiserver.v1.DashboardService/GetMe",
  });
  await readAll(response);
  return response.statusCode;
}

describe("trust for the real Cursor hosts", () => {
  it("passes through to a real host whose CA is only in the OS's store", async () => {
    expect(await passthroughStatus(await connectorWithOsStore("inspecting", pki.caPem))).toBe(200);
    expect(realHost.requests.map((r) => r.path)).toEqual(["/aiserver.v1.DashboardService/GetMe"]);
  });

  it("refuses that host when neither the OS store nor Node's roots vouch for it", async () => {
    // A store holding some other CA: the stand-in's certificate is then trusted by nothing.
    expect(await passthroughStatus(await connectorWithOsStore("unrelated", makeStandInPki().caPem))).toBe(503);
  });

  it("keeps Node's bundled roots beside the OS store, and is Node's own default where Node cannot read the store", async () => {
    const fake = (type: "default" | "system") => (type === "default" ? ["bundled"] : ["system"]);
    expect(upstreamCa(["extra"], { getCACertificates: fake })).toEqual(["bundled", "system", "extra"]);
    const unreadable = (type: "default" | "system") => {
      if (type === "system") throw new Error("no store");
      return ["bundled"];
    };
    expect(upstreamCa([], { getCACertificates: unreadable })).toEqual(["bundled"]);
    // Node 20: no tls.getCACertificates.
    expect(upstreamCa([], {})).toBeUndefined();
    expect(upstreamCa(["extra"], {})).toEqual([...rootCertificates, "extra"]);
  });

  it("on this Node, trusts every certificate of its default set and of the OS store", async () => {
    const tls = await import("node:tls");
    const trusted = new Set(upstreamCa());
    for (const pem of [...tls.getCACertificates("default"), ...tls.getCACertificates("system")]) expect(trusted.has(pem)).toBe(true);
    // And a TLS client given that list reaches a host of the OS store's CA when the store holds it.
    const withStandIn = upstreamCa([], {
      getCACertificates: (type) => (type === "system" ? [pki.caPem] : tls.getCACertificates("default")),
    });
    const socket = tlsConnect({ host: "127.0.0.1", port: realHost.port, servername: "api2.cursor.sh", ca: withStandIn });
    await withTimeout(once(socket, "secureConnect"), WAIT_MS, "TLS to the stand-in");
    socket.destroy();
  });
});
