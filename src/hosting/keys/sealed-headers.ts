// Custom request headers of a credential or a model: their values are secrets like keys
// (docs/keys-at-rest.md#header-values), so the object is encrypted with the team's data key,
// bound to the team and the row's id, and only the names are stored beside it in clear.
import { AppError } from "../../core/errors.ts";
import type { DataKey } from "./data-key.ts";
import { open, parseEnvelope, sameKeyId, seal } from "./sealed-envelope.ts";

/** Whose headers they are: all three in the additional data, so a sealed value copied to another row does not open. */
export interface HeadersOwner {
  teamId: string;
  kind: "credential" | "model" | "team-otlp";
  id: string;
}

/** What the row stores: the sealed object and the names in clear; both null for no headers. */
export interface StoredHeaders {
  sealedHeaders: string | null;
  headerNamesJson: string | null;
}

export const NO_HEADERS: StoredHeaders = { sealedHeaders: null, headerNamesJson: null };

export async function sealHeaders(
  dataKey: DataKey,
  owner: HeadersOwner,
  headers: Record<string, string> | null | undefined,
): Promise<StoredHeaders> {
  if (!headers || Object.keys(headers).length === 0) return NO_HEADERS;
  const plaintext = new TextEncoder().encode(JSON.stringify(headers));
  try {
    return {
      sealedHeaders: await seal(dataKey.key, dataKey.id, contextOf(owner), plaintext),
      headerNamesJson: JSON.stringify(Object.keys(headers)),
    };
  } finally {
    plaintext.fill(0);
  }
}

/** The headers; a clear data_loss error, without any value, when they do not open. */
export async function openHeaders(dataKey: DataKey, owner: HeadersOwner, sealed: string): Promise<Record<string, string>> {
  const envelope = parseEnvelope(sealed);
  if (envelope === "malformed" || envelope === "unsupported-version") {
    throw new AppError("data_loss", `a stored ${owner.kind}'s headers are not a valid envelope`);
  }
  if (!sameKeyId(envelope.keyId, dataKey.id)) {
    throw new AppError("data_loss", `a stored ${owner.kind}'s headers were encrypted under another data key`);
  }
  const plaintext = await open(dataKey.key, envelope, contextOf(owner));
  if (!plaintext) {
    throw new AppError("data_loss", `a stored ${owner.kind}'s headers do not verify: altered, or moved from another row or team`);
  }
  try {
    return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, string>;
  } finally {
    plaintext.fill(0);
  }
}

/** The names a row's headers have, sealed or (rows from before sealing) plain; never a value. */
export function headerNames(row: { headerNamesJson: string | null; headersJson: string | null }): string[] {
  if (row.headerNamesJson) return JSON.parse(row.headerNamesJson) as string[];
  return row.headersJson ? Object.keys(JSON.parse(row.headersJson) as Record<string, string>) : [];
}

function contextOf({ teamId, kind, id }: HeadersOwner): string[] {
  if (!teamId || !id) throw new AppError("internal", "sealed headers need their team id and row id");
  return [`${kind}-headers`, teamId, id];
}
