// Size limits on what the client sends, shared by the run_request check and the
// run (a long message read from its blob is checked again once read).

/** One message must fit a history row (the object's SQLite caps rows at 2 MB); counted JSON-escaped, in UTF-8. */
export const USER_TEXT_MAX_BYTES = 1_000_000;
