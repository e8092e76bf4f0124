// Size limits on what the client sends, shared by the run_request check and the
// run (a long message read from its blob is checked again once read).

/** One message must fit a history row (the object's SQLite caps rows at 2 MB); counted JSON-escaped, in UTF-8. */
export const USER_TEXT_MAX_BYTES = 1_000_000;

/**
 * What one model answer may hold, in UTF-8 bytes of its text, reasoning and tool-call arguments
 * together: the answer goes to the client as one set_blob frame of about twice its size, which must
 * stay under the 32 MiB frame cap (docs/protocol.md#limits). Past it the call is stopped, and what
 * the model wrote up to there is kept.
 */
export const ANSWER_MAX_BYTES = 12 * 1024 * 1024;

/** UTF-8 length without encoding (a delta at a time, on the hot path). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
      bytes += 4; // a surrogate pair: one code point of 4 bytes
      i++;
    } else bytes += 3;
  }
  return bytes;
}
