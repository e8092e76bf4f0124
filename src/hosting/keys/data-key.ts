// Team data keys: 32 random bytes per team, stored only wrapped by the current KEK with the
// team id in the additional data, and re-wrapped under a new KEK after a rotation
// (docs/keys-at-rest.md).
import { AppError } from "../../core/errors.ts";
import { importAesKey, keyIdOf, open, parseEnvelope, sameKeyId, seal } from "./sealed-envelope.ts";
import { type Kek, type KekEnv, type Keyring, loadKeyring } from "./kek.ts";

/** An unwrapped data key: usable for encryption, never extractable. */
export interface DataKey {
  readonly id: Uint8Array;
  readonly key: CryptoKey;
}

const DATA_KEY_BYTES = 32;
/**
 * What a data-key envelope holds, in its additional data: a credential envelope cannot pass for
 * one, and a wrap copied to another team's row does not open (docs/keys-at-rest.md#the-envelope).
 */
function contextOf(teamId: string): string[] {
  if (!teamId) throw new AppError("internal", "a team data key needs its team id");
  return ["team-data-key", teamId];
}
/** Wraps made before they were bound to their team: still opened, and re-wrapped bound by the rewrap. */
const UNBOUND_CONTEXT = ["team-data-key"] as const;

/** A new data key for a team, and its wrapped form to store. */
export async function createDataKey(env: KekEnv, teamId: string): Promise<{ dataKey: DataKey; wrapped: string }> {
  const { current } = await loadKeyring(env, "created");
  const raw = crypto.getRandomValues(new Uint8Array(DATA_KEY_BYTES));
  try {
    const wrapped = await seal(current.key, current.id, contextOf(teamId), raw);
    return { dataKey: await dataKeyOf(raw), wrapped };
  } finally {
    raw.fill(0);
  }
}

/** A team's stored data key, opened with whichever configured KEK wrapped it. */
export async function unwrapDataKey(env: KekEnv, teamId: string, wrapped: string): Promise<DataKey> {
  const keyring = await loadKeyring(env, "used");
  const { raw } = await openDataKey(keyring, teamId, wrapped);
  try {
    return await dataKeyOf(raw);
  } finally {
    raw.fill(0);
  }
}

export interface RewrapOutcome {
  /** In input order: the key under the current KEK; one that failed is returned as it was. */
  wrapped: string[];
  /** Were under KEY_ENCRYPTION_KEY_PREVIOUS, or not bound to their team, and are now under KEY_ENCRYPTION_KEY, bound. */
  rewrapped: number;
  /** Were already under KEY_ENCRYPTION_KEY, bound to their team (and open with it). */
  unchanged: number;
  /** Could not be opened; by index in the input, with why (no key material). */
  failures: { index: number; message: string }[];
}

/**
 * Re-wraps every data key under the current KEK, bound to its team, for the operator's rewrap
 * after a rotation. One bad row does not stop the others; a missing or malformed KEK stops them all.
 */
export async function rewrapDataKeys(env: KekEnv, stored: readonly { teamId: string; wrapped: string }[]): Promise<RewrapOutcome> {
  const keyring = await loadKeyring(env, "re-wrapped");
  const outcome: RewrapOutcome = { wrapped: [], rewrapped: 0, unchanged: 0, failures: [] };
  for (const [index, { teamId, wrapped: text }] of stored.entries()) {
    try {
      const rewrapped = await rewrap(keyring, teamId, text);
      outcome.wrapped.push(rewrapped);
      if (rewrapped === text) outcome.unchanged++;
      else outcome.rewrapped++;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      outcome.wrapped.push(text);
      outcome.failures.push({ index, message: error.message });
    }
  }
  return outcome;
}

/** The same text when the current KEK already wraps it bound (checked by opening it), else a new bound envelope under it. */
async function rewrap(keyring: Keyring, teamId: string, wrapped: string): Promise<string> {
  const { raw, kek, bound } = await openDataKey(keyring, teamId, wrapped);
  try {
    if (kek === keyring.current && bound) return wrapped;
    return await seal(keyring.current.key, keyring.current.id, contextOf(teamId), raw);
  } finally {
    raw.fill(0);
  }
}

/** The raw data key (the caller zeroes it), the KEK that opened it, and whether the wrap is bound to the team. */
async function openDataKey(keyring: Keyring, teamId: string, wrapped: string): Promise<{ raw: Uint8Array; kek: Kek; bound: boolean }> {
  const envelope = parseEnvelope(wrapped);
  if (envelope === "malformed") throw new AppError("data_loss", "a stored team data key is not a valid key envelope");
  if (envelope === "unsupported-version") throw new AppError("data_loss", "a stored team data key has an unsupported envelope version");
  const kek = [keyring.current, keyring.previous].find((k): k is Kek => k !== undefined && sameKeyId(k.id, envelope.keyId));
  if (!kek) {
    throw new AppError(
      "failed_precondition",
      "a stored team data key was wrapped with a key-encryption key that is neither KEY_ENCRYPTION_KEY nor KEY_ENCRYPTION_KEY_PREVIOUS",
    );
  }
  const boundRaw = await open(kek.key, envelope, contextOf(teamId));
  const raw = boundRaw ?? (await open(kek.key, envelope, UNBOUND_CONTEXT));
  if (!raw || raw.length !== DATA_KEY_BYTES) {
    raw?.fill(0);
    throw new AppError(
      "data_loss",
      `a stored team data key does not verify under ${kek.variable}: it was altered, or belongs to another team`,
    );
  }
  return { raw, kek, bound: boundRaw !== undefined };
}

async function dataKeyOf(raw: Uint8Array): Promise<DataKey> {
  const [id, key] = await Promise.all([keyIdOf(raw), importAesKey(raw)]);
  return { id, key };
}
