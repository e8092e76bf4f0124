// The user token format (src/hosting/auth/user-token.ts): prefix, 256 random bits in
// base64url, and the SHA-256 the tokens table stores.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { isUserTokenShape, newUserToken, userTokenHash } from "../../../src/hosting/auth/user-token.ts";

describe("user tokens", () => {
  it("are byok_ and 43 base64url characters (256 bits), different every time", () => {
    const tokens = Array.from({ length: 100 }, newUserToken);
    for (const token of tokens) {
      expect(token).toMatch(/^byok_[A-Za-z0-9_-]{43}$/);
      expect(isUserTokenShape(token)).toBe(true);
    }
    expect(new Set(tokens).size).toBe(100);
  });

  it("tells a user token's shape from other bearer tokens", () => {
    expect(isUserTokenShape("test-token")).toBe(false);
    expect(isUserTokenShape(`byok_${"a".repeat(42)}`)).toBe(false);
    expect(isUserTokenShape(`byok_${"a".repeat(42)}=`)).toBe(false);
  });

  it("are stored as the lowercase hex SHA-256 of the whole token", async () => {
    const token = newUserToken();
    expect(await userTokenHash(token)).toBe(createHash("sha256").update(token).digest("hex"));
  });
});
