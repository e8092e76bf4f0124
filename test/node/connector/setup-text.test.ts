// What the connector prints for people (connector/setup-text.ts,
// docs/connector.md#trusting-it): on Linux both stores the Cursor app uses (the
// NSS database its Chromium reads, the system store for its Node side), each with
// its undo, every path quoted for the shell, and never a token.
import { describe, expect, it } from "vitest";
import { setupText } from "../../../connector/setup-text.ts";

const facts = {
  certPath: "/home/me/.config/byok-edge/connector dir/ca.pem",
  sha1: "25D05C60C4F333AC509E941BED070D74A570F205",
  host: "127.0.0.1",
  port: 8790,
  deploymentUrl: "https://byok.example.com",
  tokenSource: "$BYOK_TOKEN",
};
const quoted = "'/home/me/.config/byok-edge/connector dir/ca.pem'";

/** The lines between `from` and the next blank line. */
function block(text: string, from: string): string[] {
  const start = text.indexOf(from);
  expect(start, from).toBeGreaterThanOrEqual(0);
  return text.slice(start).split("\n\n")[0]!.split("\n");
}

describe("the setup text", () => {
  const text = setupText(facts);
  const trust = block(text, "Trust the connector's CA once");
  const undo = block(text, "To undo:");

  it("on Linux trusts the CA in the NSS database the Cursor app reads, and undoes it by name", () => {
    expect(trust).toContain(`    the app:       certutil -d "sql:$HOME/.pki/nssdb" -A -t "C,," -n byok-edge-connector -i ${quoted}`);
    expect(trust.join("\n")).toContain('mkdir -p "$HOME/.pki/nssdb" && certutil -d "sql:$HOME/.pki/nssdb" -N --empty-password');
    expect(trust.join("\n")).toContain("libnss3-tools");
    expect(undo).toContain('    the app:       certutil -d "sql:$HOME/.pki/nssdb" -D -n byok-edge-connector');
  });

  it("on Linux also puts it in the system store for the app's Node-side requests, with the undo", () => {
    expect(trust).toContain(
      `    Debian/Ubuntu: sudo cp ${quoted} '/usr/local/share/ca-certificates/byok-edge-connector.crt' && sudo update-ca-certificates`,
    );
    expect(trust).toContain(`    Fedora/RHEL:   sudo trust anchor --store ${quoted}`);
    expect(undo).toContain(
      "    Debian/Ubuntu: sudo rm '/usr/local/share/ca-certificates/byok-edge-connector.crt' && sudo update-ca-certificates --fresh",
    );
    expect(undo).toContain(`    Fedora/RHEL:   sudo trust anchor --remove ${quoted}`);
  });

  it("removes it on macOS and Windows by its fingerprint", () => {
    expect(trust).toContain(
      `  macOS:           sudo security add-trusted-cert -d -r trustRoot -k '/Library/Keychains/System.keychain' ${quoted}`,
    );
    expect(undo).toContain(`  macOS:           sudo security delete-certificate -Z ${facts.sha1} -t '/Library/Keychains/System.keychain'`);
    expect(undo.some((line) => line.includes(`certutil -delstore -user Root ${facts.sha1}`))).toBe(true);
  });

  it("names the token's variable and the proxy for Cursor's settings", () => {
    expect(text).toContain("(token from $BYOK_TOKEN)");
    expect(text).toContain('"http.proxy": "http://127.0.0.1:8790"');
  });
});
