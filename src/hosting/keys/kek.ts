// The key-encryption keys from the environment: KEY_ENCRYPTION_KEY wraps new data keys;
// KEY_ENCRYPTION_KEY_PREVIOUS, during a rotation, still opens what the old one wrapped
// (docs/keys-at-rest.md#rotation). Imported once per isolate, never extractable.
import { fromBase64 } from "../../core/bytes.ts";
import { AppError } from "../../core/errors.ts";
import { importAesKey, keyIdOf } from "./sealed-envelope.ts";

/** The part of the worker's env this module reads (secrets; see docs/keys-at-rest.md). */
export interface KekEnv {
  KEY_ENCRYPTION_KEY?: string;
  KEY_ENCRYPTION_KEY_PREVIOUS?: string;
}

type KekVariable = keyof KekEnv;

export interface Kek {
  variable: KekVariable;
  id: Uint8Array;
  key: CryptoKey;
}

export interface Keyring {
  current: Kek;
  previous: Kek | undefined;
}

/** What a missing KEY_ENCRYPTION_KEY stops: said in the error. */
type KekUse = "created" | "used" | "re-wrapped";

const KEK_BYTES = 32;
/** Env values seen by this isolate; more than a handful means something is churning, so start over. */
const CACHE_LIMIT = 8;
const imported = new Map<string, Promise<{ id: Uint8Array; key: CryptoKey }>>();

/** The configured KEKs; a clear failed_precondition when the current one is missing or either is malformed. */
export async function loadKeyring(env: KekEnv, use: KekUse): Promise<Keyring> {
  const current = env.KEY_ENCRYPTION_KEY?.trim();
  if (!current) {
    throw new AppError("failed_precondition", `KEY_ENCRYPTION_KEY is not configured; stored credentials cannot be ${use}`);
  }
  const previous = env.KEY_ENCRYPTION_KEY_PREVIOUS?.trim();
  return {
    current: await loadKek("KEY_ENCRYPTION_KEY", current),
    previous: previous ? await loadKek("KEY_ENCRYPTION_KEY_PREVIOUS", previous) : undefined,
  };
}

async function loadKek(variable: KekVariable, value: string): Promise<Kek> {
  let entry = imported.get(value);
  if (!entry) {
    const raw = decodeKek(variable, value);
    entry = (async () => {
      const [id, key] = await Promise.all([keyIdOf(raw), importAesKey(raw)]);
      raw.fill(0);
      return { id, key };
    })();
    if (imported.size >= CACHE_LIMIT) imported.clear();
    imported.set(value, entry);
    entry.catch(() => imported.delete(value));
  }
  return { variable, ...(await entry) };
}

/** The 32 bytes of a base64 (or base64url) KEK; the error names the variable, never the value. */
function decodeKek(variable: KekVariable, value: string): Uint8Array {
  const malformed = (why: string) =>
    new AppError("failed_precondition", `${variable} is malformed: ${why}; it must be 32 random bytes in base64 (openssl rand -base64 32)`);
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) throw malformed("it is not base64");
  const raw = fromBase64(value);
  if (raw === undefined) throw malformed("it is not base64");
  if (raw.length !== KEK_BYTES) {
    raw.fill(0);
    throw malformed(`it decodes to ${raw.length} bytes`);
  }
  return raw;
}
