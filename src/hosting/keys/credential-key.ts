// A stored credential's provider key: encrypted with its team's data key, bound to the
// team and credential ids, so a row copied to another team or credential does not open
// (docs/keys-at-rest.md). Decrypted only for the provider call; only its last four are shown.
import { AppError } from "../../core/errors.ts";
import type { DataKey } from "./data-key.ts";
import { open, parseEnvelope, sameKeyId, seal } from "./sealed-envelope.ts";

/**
 * What a credential without a key (a local server that checks none) stores instead of an envelope:
 * there is nothing to encrypt, and its models send no key header (docs/keys-at-rest.md).
 */
export const NO_KEY = "";

/** Whose key it is: both ids are in the additional data. */
export interface CredentialOwner {
  teamId: string;
  credentialId: string;
}

export async function encryptCredentialKey(dataKey: DataKey, owner: CredentialOwner, apiKey: string): Promise<string> {
  if (apiKey === "") throw new AppError("invalid_argument", "api_key must not be empty");
  const plaintext = new TextEncoder().encode(apiKey);
  try {
    return await seal(dataKey.key, dataKey.id, contextOf(owner), plaintext);
  } finally {
    plaintext.fill(0);
  }
}

/** The provider key; a clear data_loss error, without key material, when the row does not open. */
export async function decryptCredentialKey(dataKey: DataKey, owner: CredentialOwner, encrypted: string): Promise<string> {
  const envelope = parseEnvelope(encrypted);
  if (envelope === "malformed") throw new AppError("data_loss", "a stored credential key is not a valid key envelope");
  if (envelope === "unsupported-version") throw new AppError("data_loss", "a stored credential key has an unsupported envelope version");
  if (!sameKeyId(envelope.keyId, dataKey.id)) {
    throw new AppError(
      "data_loss",
      "a stored credential key was encrypted under another data key: another team's, or its header was altered",
    );
  }
  const plaintext = await open(dataKey.key, envelope, contextOf(owner));
  if (!plaintext) {
    throw new AppError("data_loss", "a stored credential key does not verify: it was altered, or belongs to another credential or team");
  }
  try {
    return new TextDecoder().decode(plaintext);
  } finally {
    plaintext.fill(0);
  }
}

/** What may be shown of a key: its last four characters, or nothing for a key so short that four would give most of it away. */
export function keyLastFour(apiKey: string): string {
  const chars = Array.from(apiKey);
  return chars.length < 8 ? "" : chars.slice(-4).join("");
}

function contextOf({ teamId, credentialId }: CredentialOwner): string[] {
  if (!teamId || !credentialId) throw new AppError("internal", "a credential key needs its team id and credential id");
  return ["credential-key", teamId, credentialId];
}
