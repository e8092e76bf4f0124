// The personal key the request's own token opens (docs/keys-at-rest.md#personal-keys): a
// user's token that holds a wrap of their current key; nobody else's request has one.
import { openPersonalKey, type PersonalKey, unwrapPersonalKey } from "../keys/personal-key.ts";
import type { Principal } from "./principal.ts";

/** Its raw bytes, for handing to the conversation object with an append; the caller zeroes them. */
export async function callerPersonalKeyBytes(principal: Principal): Promise<Uint8Array | undefined> {
  if (principal.kind !== "user" || !principal.secret.wrap) return undefined;
  return unwrapPersonalKey(principal.secret, principal.id, principal.personalKeyId);
}

export async function callerPersonalKey(principal: Principal): Promise<PersonalKey | undefined> {
  if (principal.kind !== "user" || !principal.secret.wrap) return undefined;
  return openPersonalKey(principal.secret, principal.id, principal.personalKeyId);
}
