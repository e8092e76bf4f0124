// The admin API names each invalid field in one message (docs/hosting.md#errors):
// "body.email: Invalid email address; body.role: …". The dashboard shows each part
// next to its field.

/**
 * The field messages of an invalid_argument message: each "body.<field>…: <text>" part, keyed by
 * its first path segment (so "body.headers.x-a: …" is the "headers" field's). Query problems too.
 */
export function fieldMessages(message: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const part of message.split(/; (?=(?:body|query)\.)/)) {
    const match = /^(?:body|query)\.([^.:\s]+)[^:]*: ([\s\S]+)$/.exec(part);
    if (!match) continue;
    const [, field, text] = match as unknown as [string, string, string];
    fields[field] = fields[field] ? `${fields[field]}; ${text}` : text;
  }
  return fields;
}
