// The upstream URL guard (src/provider/upstream-url.ts) under Node's URL parser: every
// spelling of a private destination is refused, public hosts pass, and
// BYOK_ALLOW_PRIVATE_UPSTREAMS lifts the address rules but not the URL ones.
import { describe, expect, it } from "vitest";
import { checkUpstreamUrl } from "../../../src/provider/upstream-url.ts";
import { PRIVATE_HOSTS, PUBLIC_HOSTS } from "../../support/upstream-hosts.ts";

const REFUSED =
  /^base_url points at a loopback or private address \(.+: .+\); the server allows such URLs only with BYOK_ALLOW_PRIVATE_UPSTREAMS=true: a local npm run dev sets it in the \.dev\.vars it writes; a deployment needs it among its vars$/;

describe("upstream URL guard", () => {
  for (const [group, hosts] of Object.entries(PRIVATE_HOSTS)) {
    it(`refuses ${group}`, () => {
      for (const host of hosts) expect(checkUpstreamUrl(`https://${host}/v1`, false), host).toMatch(REFUSED);
    });
  }

  it("lets public names and addresses through, including mapped, NAT64 and 6to4 forms of a public address", () => {
    for (const host of PUBLIC_HOSTS) expect(checkUpstreamUrl(`https://${host}/v1`, false), host).toBeUndefined();
  });

  it("says why an address is refused, naming the normalised host", () => {
    expect(checkUpstreamUrl("https://0x7f.1/v1", false)).toMatch(/\(127\.0\.0\.1: a loopback address\)/);
    expect(checkUpstreamUrl("https://[::127.0.0.1]/v1", false)).toMatch(/\(\[::7f00:1\]: an IPv4-compatible form of a loopback address\)/);
    expect(checkUpstreamUrl("https://[2002:a9fe:a9fe::]/v1", false)).toMatch(/a 6to4 form of a link-local address/);
    expect(checkUpstreamUrl("https://100.64.0.1/v1", false)).toMatch(/carrier-grade NAT/);
    expect(checkUpstreamUrl("https://[fec0::1]/v1", false)).toMatch(/site-local/);
    expect(checkUpstreamUrl("https://gateway/v1", false)).toMatch(/\(gateway: a single-label name\)/);
    expect(checkUpstreamUrl("https://api.ns.svc.cluster.local/v1", false)).toMatch(/the internal name suffix \.cluster\.local/);
    expect(checkUpstreamUrl("https://app.127.0.0.1.nip.io/v1", false)).toMatch(/nip\.io names resolve to the address written in them/);
    expect(checkUpstreamUrl("https://api.localtest.me/v1", false)).toMatch(/localtest\.me names resolve to loopback/);
    expect(checkUpstreamUrl("https://[fe80::1]/v1", false)).toMatch(/\(\[fe80::1\]: a link-local address\)/);
    expect(checkUpstreamUrl("https://169.254.169.254/v1", false)).toMatch(/link-local address \(cloud metadata lives here\)/);
    expect(checkUpstreamUrl("https://db-10-1-2-3.example.com/v1", false)).toMatch(/the name spells 10\.1\.2\.3, a private address/);
  });

  it("requires https for public hosts, and http or https always", () => {
    expect(checkUpstreamUrl("http://api.openai.com/v1", false)).toMatch(/must use https/);
    expect(checkUpstreamUrl("ftp://api.openai.com/v1", false)).toMatch(/must use http or https/);
    expect(checkUpstreamUrl("file:///etc/passwd", true)).toMatch(/must use http or https/);
    expect(checkUpstreamUrl("not a url", false)).toMatch(/not a valid URL/);
    expect(checkUpstreamUrl("https://[fe80::1%25eth0]/v1", false)).toMatch(/not a valid URL/);
    expect(checkUpstreamUrl("https://key:secret@api.openai.com/v1", true)).toMatch(/must not contain credentials/);
  });

  it("allows every private spelling, over http too, when private upstreams are allowed", () => {
    for (const host of Object.values(PRIVATE_HOSTS).flat()) {
      expect(checkUpstreamUrl(`http://${host}:8080/v1`, true), host).toBeUndefined();
      expect(checkUpstreamUrl(`https://${host}/v1`, true), host).toBeUndefined();
    }
  });
});
