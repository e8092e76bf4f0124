// Keys at rest (src/hosting/keys): team data keys wrapped by the KEK, credential keys bound to
// their team and credential, KEK rotation and rewrap, and errors that carry no key material.
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { describe, expect, it } from "vitest";
import { decryptCredentialKey, encryptCredentialKey, keyLastFour } from "../../../src/hosting/keys/credential-key.ts";
import { createDataKey, rewrapDataKeys, unwrapDataKey } from "../../../src/hosting/keys/data-key.ts";
import { importAesKey, keyIdOf, seal } from "../../../src/hosting/keys/sealed-envelope.ts";
import { AppError, Code } from "../../../src/core/errors.ts";

const API_KEY = "test-key-never-in-an-error-0123456789";
const TEAM = "team-a";
const OWNER = { teamId: TEAM, credentialId: "cred-1" };
const ofTeam = (wrapped: string[]) => wrapped.map((w) => ({ teamId: TEAM, wrapped: w }));

const newKek = () => base64Encode(crypto.getRandomValues(new Uint8Array(32)), "std");
const envWith = (current?: string, previous?: string) => ({ KEY_ENCRYPTION_KEY: current, KEY_ENCRYPTION_KEY_PREVIOUS: previous });

/** The AppError a promise rejects with, after checking it names no secret. */
async function rejection(promise: Promise<unknown>, ...secrets: string[]): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  for (const secret of [API_KEY, ...secrets]) expect(`${appError.message} ${String(appError.cause)}`).not.toContain(secret);
  return appError;
}

/** The envelope with one byte flipped, at `index` (negative: from the end). */
function flipByte(envelope: string, index: number): string {
  const bytes = base64Decode(envelope);
  const at = index < 0 ? bytes.length + index : index;
  bytes[at] = (bytes[at] ?? 0) ^ 0x01;
  return base64Encode(bytes, "url");
}

describe("keys at rest", () => {
  it("encrypts a credential key under a new team data key and decrypts it after the data key is unwrapped again", async () => {
    const env = envWith(newKek());
    const { dataKey, wrapped } = await createDataKey(env, TEAM);
    const encrypted = await encryptCredentialKey(dataKey, OWNER, API_KEY);
    expect(encrypted).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(encrypted).not.toContain(API_KEY);
    expect(base64Decode(encrypted)[0]).toBe(1);
    expect(base64Decode(wrapped)[0]).toBe(1);

    const reopened = await unwrapDataKey(env, TEAM, wrapped);
    expect(await decryptCredentialKey(reopened, OWNER, encrypted)).toBe(API_KEY);
  });

  it("uses a fresh IV for every encryption", async () => {
    const { dataKey } = await createDataKey(envWith(newKek()), TEAM);
    const once = await encryptCredentialKey(dataKey, OWNER, API_KEY);
    const twice = await encryptCredentialKey(dataKey, OWNER, API_KEY);
    expect(once).not.toBe(twice);
  });

  it("keeps data keys non-extractable", async () => {
    const { dataKey } = await createDataKey(envWith(newKek()), TEAM);
    expect(dataKey.key.extractable).toBe(false);
    await expect(crypto.subtle.exportKey("raw", dataKey.key)).rejects.toThrow();
    expect(JSON.stringify(dataKey)).not.toMatch(/[A-Za-z0-9+/]{40}/);
  });

  it("refuses a tampered credential ciphertext or tag", async () => {
    const { dataKey } = await createDataKey(envWith(newKek()), TEAM);
    const encrypted = await encryptCredentialKey(dataKey, OWNER, API_KEY);
    for (const index of [-1, -20, 9, 9 + 12]) {
      const error = await rejection(decryptCredentialKey(dataKey, OWNER, flipByte(encrypted, index)));
      expect(error.code).toBe(Code.DataLoss);
    }
    const truncated = base64Encode(base64Decode(encrypted).slice(0, 30), "url");
    expect((await rejection(decryptCredentialKey(dataKey, OWNER, truncated))).message).toMatch(/not a valid key envelope/);
    expect((await rejection(decryptCredentialKey(dataKey, OWNER, "not base64url!"))).code).toBe(Code.DataLoss);
  });

  it("refuses a tampered version byte", async () => {
    const env = envWith(newKek());
    const { dataKey, wrapped } = await createDataKey(env, TEAM);
    const encrypted = await encryptCredentialKey(dataKey, OWNER, API_KEY);
    const credentialError = await rejection(decryptCredentialKey(dataKey, OWNER, flipByte(encrypted, 0)));
    expect(credentialError).toMatchObject({ code: Code.DataLoss, message: "a stored credential key has an unsupported envelope version" });
    const dataKeyError = await rejection(unwrapDataKey(env, TEAM, flipByte(wrapped, 0)));
    expect(dataKeyError).toMatchObject({ code: Code.DataLoss, message: "a stored team data key has an unsupported envelope version" });
  });

  it("refuses a credential row moved to another team, whether read with this team's data key or the other's", async () => {
    const env = envWith(newKek());
    const teamA = await createDataKey(env, TEAM);
    const teamB = await createDataKey(env, "team-b");
    const encrypted = await encryptCredentialKey(teamA.dataKey, OWNER, API_KEY);
    const movedOwner = { ...OWNER, teamId: "team-b" };
    expect((await rejection(decryptCredentialKey(teamB.dataKey, movedOwner, encrypted))).message).toBe(
      "a stored credential key was encrypted under another data key: another team's, or its header was altered",
    );
    const sameKey = await rejection(decryptCredentialKey(teamA.dataKey, movedOwner, encrypted));
    expect(sameKey).toMatchObject({ code: Code.DataLoss, message: expect.stringMatching(/belongs to another credential or team/) });
  });

  it("binds a team's data key to its team: the wrap copied to another team's row does not open", async () => {
    const env = envWith(newKek());
    const { wrapped } = await createDataKey(env, TEAM);
    const moved = await rejection(unwrapDataKey(env, "team-b", wrapped));
    expect(moved).toMatchObject({ code: Code.DataLoss, message: expect.stringMatching(/belongs to another team/) });
    await expect(unwrapDataKey(env, TEAM, wrapped)).resolves.toBeDefined();
  });

  it("still opens a data key wrapped before wraps were bound to their team, and the rewrap binds it", async () => {
    const kek = newKek();
    const env = envWith(kek);
    const raw = crypto.getRandomValues(new Uint8Array(32));
    const kekRaw = base64Decode(kek);
    // As the code before the binding wrapped it: the context named no team.
    const unbound = await seal(await importAesKey(kekRaw), await keyIdOf(kekRaw), ["team-data-key"], raw);
    const opened = await unwrapDataKey(env, TEAM, unbound);
    expect(opened.id).toEqual(await keyIdOf(raw));

    const outcome = await rewrapDataKeys(env, ofTeam([unbound]));
    expect(outcome).toMatchObject({ rewrapped: 1, unchanged: 0, failures: [] });
    const bound = outcome.wrapped[0] as string;
    expect((await unwrapDataKey(env, TEAM, bound)).id).toEqual(opened.id);
    expect((await rejection(unwrapDataKey(env, "team-b", bound))).code).toBe(Code.DataLoss);
    expect(await rewrapDataKeys(env, ofTeam([bound]))).toMatchObject({ rewrapped: 0, unchanged: 1 });
  });

  it("refuses a credential row moved to another credential id", async () => {
    const { dataKey } = await createDataKey(envWith(newKek()), TEAM);
    const encrypted = await encryptCredentialKey(dataKey, OWNER, API_KEY);
    const error = await rejection(decryptCredentialKey(dataKey, { ...OWNER, credentialId: "cred-2" }, encrypted));
    expect(error).toMatchObject({ code: Code.DataLoss, message: expect.stringMatching(/belongs to another credential or team/) });
  });

  it("refuses a tampered data key envelope and one from a KEK that is not configured", async () => {
    const kek = newKek();
    const other = newKek();
    const { wrapped } = await createDataKey(envWith(kek), TEAM);
    const tampered = await rejection(unwrapDataKey(envWith(kek), TEAM, flipByte(wrapped, -3)), kek);
    expect(tampered).toMatchObject({
      code: Code.DataLoss,
      message: "a stored team data key does not verify under KEY_ENCRYPTION_KEY: it was altered, or belongs to another team",
    });
    const unknown = await rejection(unwrapDataKey(envWith(other), TEAM, wrapped), kek, other);
    expect(unknown.code).toBe(Code.FailedPrecondition);
    expect(unknown.message).toMatch(/neither KEY_ENCRYPTION_KEY nor KEY_ENCRYPTION_KEY_PREVIOUS/);
    // A changed key id reads as an unknown KEK.
    expect((await rejection(unwrapDataKey(envWith(kek), TEAM, flipByte(wrapped, 3)))).code).toBe(Code.FailedPrecondition);
  });

  it("survives a KEK rotation: old rows open with the previous KEK, rewrap moves them, then the old KEK alone fails", async () => {
    const oldKek = newKek();
    const newKekValue = newKek();
    const before = await createDataKey(envWith(oldKek), TEAM);
    const encrypted = await encryptCredentialKey(before.dataKey, OWNER, API_KEY);

    const rotating = envWith(newKekValue, oldKek);
    const duringRotation = await unwrapDataKey(rotating, TEAM, before.wrapped);
    expect(await decryptCredentialKey(duringRotation, OWNER, encrypted)).toBe(API_KEY);
    const createdDuringRotation = await createDataKey(rotating, TEAM);

    const outcome = await rewrapDataKeys(rotating, ofTeam([before.wrapped, createdDuringRotation.wrapped]));
    expect(outcome).toMatchObject({ rewrapped: 1, unchanged: 1, failures: [] });
    const [rewrapped, untouched] = outcome.wrapped as [string, string];
    expect(rewrapped).not.toBe(before.wrapped);
    expect(untouched).toBe(createdDuringRotation.wrapped);

    const afterRotation = await unwrapDataKey(envWith(newKekValue), TEAM, rewrapped);
    expect(await decryptCredentialKey(afterRotation, OWNER, encrypted)).toBe(API_KEY);
    const oldAlone = await rejection(unwrapDataKey(envWith(oldKek), TEAM, rewrapped), oldKek, newKekValue);
    expect(oldAlone.code).toBe(Code.FailedPrecondition);
    expect((await rejection(unwrapDataKey(envWith(newKekValue), TEAM, before.wrapped))).code).toBe(Code.FailedPrecondition);
    expect(await rewrapDataKeys(envWith(newKekValue), ofTeam([rewrapped]))).toMatchObject({
      wrapped: [rewrapped],
      rewrapped: 0,
      unchanged: 1,
    });
  });

  it("goes on past a data key it cannot rewrap and reports it by index", async () => {
    const oldKek = newKek();
    const current = newKek();
    const good = await createDataKey(envWith(oldKek), TEAM);
    const lost = await createDataKey(envWith(newKek()), TEAM);
    const outcome = await rewrapDataKeys(envWith(current, oldKek), ofTeam([lost.wrapped, good.wrapped, "garbage"]));
    expect(outcome.rewrapped).toBe(1);
    expect(outcome.unchanged).toBe(0);
    expect(outcome.failures.map((f) => f.index)).toEqual([0, 2]);
    expect(outcome.wrapped[0]).toBe(lost.wrapped);
    expect(outcome.wrapped[2]).toBe("garbage");
    await expect(unwrapDataKey(envWith(current), TEAM, outcome.wrapped[1] as string)).resolves.toBeDefined();
  });

  it("says KEY_ENCRYPTION_KEY is not configured, as failed_precondition, when it is missing", async () => {
    for (const env of [envWith(undefined), envWith(""), envWith("  ", newKek())]) {
      const error = await rejection(createDataKey(env, TEAM));
      expect(error).toMatchObject({
        code: Code.FailedPrecondition,
        message: "KEY_ENCRYPTION_KEY is not configured; stored credentials cannot be created",
      });
    }
    const { wrapped } = await createDataKey(envWith(newKek()), TEAM);
    expect((await rejection(unwrapDataKey({}, TEAM, wrapped))).message).toBe(
      "KEY_ENCRYPTION_KEY is not configured; stored credentials cannot be used",
    );
    expect((await rejection(rewrapDataKeys({}, ofTeam([wrapped])))).code).toBe(Code.FailedPrecondition);
  });

  it("names a malformed KEK's variable and never its value or bytes", async () => {
    const short = base64Encode(crypto.getRandomValues(new Uint8Array(16)), "std");
    const hex = Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("");
    const notBase64 = "this is my key-encryption key!";
    for (const bad of [short, hex, notBase64]) {
      const error = await rejection(createDataKey(envWith(bad), TEAM), bad, bad.slice(0, 8));
      expect(error.code).toBe(Code.FailedPrecondition);
      expect(error.message).toMatch(/^KEY_ENCRYPTION_KEY is malformed: .*32 random bytes in base64/);
      const previous = await rejection(unwrapDataKey(envWith(newKek(), bad), TEAM, "AQ"), bad, bad.slice(0, 8));
      expect(previous.message).toMatch(/^KEY_ENCRYPTION_KEY_PREVIOUS is malformed/);
    }
  });

  it("accepts a KEK with surrounding whitespace or in base64url, as secrets are often pasted", async () => {
    const raw = crypto.getRandomValues(new Uint8Array(32));
    const { wrapped } = await createDataKey(envWith(`${base64Encode(raw, "std")}\n`), TEAM);
    await expect(unwrapDataKey(envWith(base64Encode(raw, "url")), TEAM, wrapped)).resolves.toBeDefined();
  });

  it("shows only a key's last four characters, and nothing of a key too short to hide", () => {
    expect(keyLastFour(API_KEY)).toBe("6789");
    expect(keyLastFour("sk-ant-api03-abcd🔑xyz")).toBe("🔑xyz");
    expect(keyLastFour("1234567")).toBe("");
    expect(keyLastFour("")).toBe("");
  });

  it("refuses an empty key and encrypts a non-ASCII one faithfully", async () => {
    const { dataKey } = await createDataKey(envWith(newKek()), TEAM);
    expect((await rejection(encryptCredentialKey(dataKey, OWNER, ""))).code).toBe(Code.InvalidArgument);
    const unicode = "clé-ключ-鍵-🔑";
    expect(await decryptCredentialKey(dataKey, OWNER, await encryptCredentialKey(dataKey, OWNER, unicode))).toBe(unicode);
  });
});
