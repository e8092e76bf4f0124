// What of an error may be logged: its kind, never its text (SQL errors carry
// bound parameters, transport errors carry URLs, provider errors echo prompts).

export function errorKind(err: unknown): string {
  if (!(err instanceof Error)) return typeof err;
  const cause = err.cause instanceof Error ? ` (cause: ${err.cause.name})` : "";
  return `${err.name}${cause}`;
}
