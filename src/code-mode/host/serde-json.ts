// JSON checked the way Codex's host checks it (serde_json with arbitrary-precision
// numbers), so that a bad tool output or schema gets the same text, position
// included: "EOF while parsing an object at line 1 column 1" (docs/code-mode.md#errors).
// A syntax checker only; the value itself is then read with JSON.parse.

const MAX_DEPTH = 128;

const EOF_LIST = "EOF while parsing a list";
const EOF_OBJECT = "EOF while parsing an object";
const EOF_STRING = "EOF while parsing a string";
const EOF_VALUE = "EOF while parsing a value";

class JsonSyntaxError {
  constructor(
    readonly text: string,
    readonly index: number,
  ) {}
}

const isDigit = (c: number | undefined) => c !== undefined && c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** serde_json's error text for these bytes, or undefined when they are one valid JSON value. */
export function jsonSyntaxError(bytes: Uint8Array): string | undefined {
  const scanner = new Scanner(bytes);
  try {
    scanner.document();
    return undefined;
  } catch (err) {
    if (!(err instanceof JsonSyntaxError)) throw err;
    return `${err.text} at ${position(bytes, err.index)}`;
  }
}

/** serde_json counts lines from 1 and columns in bytes from the line's start. */
function position(bytes: Uint8Array, index: number): string {
  const start = bytes.subarray(0, index).lastIndexOf(0x0a) + 1;
  let line = 1;
  for (let i = 0; i < start; i++) if (bytes[i] === 0x0a) line++;
  return `line ${line} column ${index - start}`;
}

class Scanner {
  #i = 0;
  #depth = MAX_DEPTH;
  readonly #b: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.#b = bytes;
  }

  document(): void {
    this.#value();
    if (this.#whitespace() !== undefined) this.#peekError("trailing characters");
  }

  /** An error about what was just consumed. */
  #error(text: string): never {
    throw new JsonSyntaxError(text, this.#i);
  }

  /** An error about the next byte, not yet consumed. */
  #peekError(text: string): never {
    throw new JsonSyntaxError(text, Math.min(this.#i + 1, this.#b.length));
  }

  #whitespace(): number | undefined {
    for (;;) {
      const c = this.#b[this.#i];
      if (c !== 0x20 && c !== 0x0a && c !== 0x09 && c !== 0x0d) return c;
      this.#i++;
    }
  }

  #value(): void {
    const c = this.#whitespace();
    if (c === undefined) this.#peekError(EOF_VALUE);
    if (c === 0x6e) this.#ident("ull");
    else if (c === 0x74) this.#ident("rue");
    else if (c === 0x66) this.#ident("alse");
    else if (c === 0x2d) {
      this.#i++;
      this.#number();
    } else if (isDigit(c)) this.#number();
    else if (c === 0x22) {
      this.#i++;
      this.#string();
    } else if (c === 0x5b || c === 0x7b) this.#nested(c === 0x5b);
    else this.#peekError("expected value");
  }

  #ident(rest: string): void {
    this.#i++;
    for (let k = 0; k < rest.length; k++) {
      const c = this.#b[this.#i];
      if (c === undefined) this.#error(EOF_VALUE);
      this.#i++;
      if (c !== rest.charCodeAt(k)) this.#error("expected ident");
    }
  }

  #nested(list: boolean): void {
    if (--this.#depth === 0) this.#peekError("recursion limit exceeded");
    this.#i++;
    if (list) this.#list();
    else this.#object();
    this.#i++; // the closing bracket, seen by the loop
    this.#depth++;
  }

  #number(): void {
    const first = this.#b[this.#i];
    if (first === undefined) this.#error(EOF_VALUE);
    this.#i++;
    if (first === 0x30) {
      if (isDigit(this.#b[this.#i])) this.#peekError("invalid number");
    } else if (isDigit(first)) {
      while (isDigit(this.#b[this.#i])) this.#i++;
    } else {
      this.#error("invalid number");
    }
    if (this.#b[this.#i] === 0x2e) this.#fraction();
    else if (this.#b[this.#i] === 0x65 || this.#b[this.#i] === 0x45) this.#exponent();
  }

  #fraction(): void {
    this.#i++;
    const from = this.#i;
    while (isDigit(this.#b[this.#i])) this.#i++;
    if (this.#i === from) this.#peekError(this.#b[this.#i] === undefined ? EOF_VALUE : "invalid number");
    if (this.#b[this.#i] === 0x65 || this.#b[this.#i] === 0x45) this.#exponent();
  }

  #exponent(): void {
    this.#i++;
    if (this.#b[this.#i] === 0x2b || this.#b[this.#i] === 0x2d) this.#i++;
    const digit = this.#b[this.#i];
    if (digit === undefined) this.#error(EOF_VALUE);
    this.#i++;
    if (!isDigit(digit)) this.#error("invalid number");
    while (isDigit(this.#b[this.#i])) this.#i++;
  }

  /** After the opening quote; UTF-8 is checked once the string is closed, as serde_json does. */
  #string(): void {
    const b = this.#b;
    let valid = true;
    let segment = this.#i;
    for (;;) {
      while (this.#i < b.length && b[this.#i] !== 0x22 && b[this.#i] !== 0x5c && (b[this.#i] ?? 0) >= 0x20) this.#i++;
      if (this.#i === b.length) this.#error(EOF_STRING);
      valid &&= isUtf8(b.subarray(segment, this.#i));
      const c = b[this.#i];
      this.#i++;
      if (c === 0x22) {
        if (!valid) this.#error("invalid unicode code point");
        return;
      }
      if (c !== 0x5c) this.#error("control character (\\u0000-\\u001F) found while parsing a string");
      this.#escape();
      segment = this.#i;
    }
  }

  #escape(): void {
    const c = this.#b[this.#i];
    if (c === undefined) this.#error(EOF_STRING);
    this.#i++;
    if (c === 0x75) this.#unicodeEscape();
    // " \ / b f n r t
    else if (![0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(c)) this.#error("invalid escape");
  }

  #unicodeEscape(): void {
    const n = this.#hex4();
    if (n >= 0xdc00 && n <= 0xdfff) this.#error("lone leading surrogate in hex escape");
    if (n < 0xd800 || n > 0xdbff) return;
    for (const expected of [0x5c, 0x75]) {
      const c = this.#b[this.#i];
      if (c === undefined) this.#error(EOF_STRING);
      this.#i++;
      if (c !== expected) this.#error("unexpected end of hex escape");
    }
    const low = this.#hex4();
    if (low < 0xdc00 || low > 0xdfff) this.#error("lone leading surrogate in hex escape");
  }

  #hex4(): number {
    const b = this.#b;
    if (this.#i + 4 > b.length) {
      this.#i = b.length;
      this.#error(EOF_STRING);
    }
    const digits = b.subarray(this.#i, this.#i + 4);
    this.#i += 4;
    if (!digits.every(isHex)) this.#error("invalid escape");
    return Number.parseInt(String.fromCharCode(...digits), 16);
  }

  /** After "[", up to (not past) the closing "]". */
  #list(): void {
    let first = true;
    for (;;) {
      let c = this.#whitespace();
      if (c === 0x5d) return;
      if (c === 0x2c && !first) {
        this.#i++;
        c = this.#whitespace();
      } else if (c === undefined) {
        this.#peekError(EOF_LIST);
      } else if (first) {
        first = false;
      } else {
        this.#peekError("expected `,` or `]`");
      }
      if (c === 0x5d) this.#peekError("trailing comma");
      if (c === undefined) this.#peekError(EOF_VALUE);
      this.#value();
    }
  }

  /** After "{", up to (not past) the closing "}". */
  #object(): void {
    let first = true;
    for (;;) {
      let c = this.#whitespace();
      if (c === 0x7d) return;
      if (c === 0x2c && !first) {
        this.#i++;
        c = this.#whitespace();
      } else if (c === undefined) {
        this.#peekError(EOF_OBJECT);
      } else if (first) {
        first = false;
      } else {
        this.#peekError("expected `,` or `}`");
      }
      if (c === 0x7d) this.#peekError("trailing comma");
      if (c === undefined) this.#peekError(EOF_VALUE);
      if (c !== 0x22) this.#peekError("key must be a string");
      this.#i++;
      this.#string();
      const colon = this.#whitespace();
      if (colon === undefined) this.#peekError(EOF_OBJECT);
      if (colon !== 0x3a) this.#peekError("expected `:`");
      this.#i++;
      this.#value();
    }
  }
}

function isUtf8(bytes: Uint8Array): boolean {
  if (bytes.every((c) => c < 0x80)) return true;
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
