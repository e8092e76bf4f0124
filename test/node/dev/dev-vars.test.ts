// The first `npm run dev` (scripts/dev-vars.ts): a missing .dev.vars is written with fresh
// secrets, readable only by its owner, and an existing one is never touched.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { firstRunBanner, writeDevVarsOnce } from "../../../scripts/dev-vars.ts";

const fresh = () => join(mkdtempSync(join(tmpdir(), "byok-dev-vars-")), ".dev.vars");

describe("the first npm run dev", () => {
  it("writes .dev.vars with a fresh token and key-encryption key, mode 0600", () => {
    const path = fresh();
    const token = writeDevVarsOnce(path);
    const vars = parseEnv(readFileSync(path, "utf8"));
    expect(vars.BYOK_TOKEN).toBe(token);
    expect(token).toMatch(/^byok-local_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(vars.KEY_ENCRYPTION_KEY ?? "", "base64")).toHaveLength(32);
    expect(vars.BYOK_ALLOW_PRIVATE_UPSTREAMS).toBe("true");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("makes different secrets every time", () => {
    const [a, b] = [fresh(), fresh()];
    writeDevVarsOnce(a);
    writeDevVarsOnce(b);
    expect(parseEnv(readFileSync(a, "utf8")).KEY_ENCRYPTION_KEY).not.toBe(parseEnv(readFileSync(b, "utf8")).KEY_ENCRYPTION_KEY);
  });

  it("leaves an existing .dev.vars exactly as it was", () => {
    const path = fresh();
    writeFileSync(path, "BYOK_TOKEN=mine\n");
    expect(writeDevVarsOnce(path)).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe("BYOK_TOKEN=mine\n");
  });

  it("prints where to sign in, the token, and the command that points Cursor at the server", () => {
    const banner = firstRunBanner("http://127.0.0.1:8788", "byok-local_abc");
    expect(banner).toContain("http://127.0.0.1:8788/");
    expect(banner).toContain("byok-local_abc");
    expect(banner).toContain("npm run connect -- --url http://127.0.0.1:8788 --token-env BYOK_TOKEN");
  });
});
