// JSON errors as Codex's host words them (serde_json's texts and positions), for tool
// outputs and tool schemas. Every expectation here was observed on the reference host.
import { describe, expect, it } from "vitest";
import { jsonSyntaxError } from "../../../../src/code-mode/host/serde-json.ts";

const observed: [string, string | undefined][] = [
  ["", "EOF while parsing a value at line 1 column 0"],
  [" ", "EOF while parsing a value at line 1 column 1"],
  ['{"a":}', "expected value at line 1 column 6"],
  ["[1,", "EOF while parsing a value at line 1 column 3"],
  ['{"a" 1}', "expected `:` at line 1 column 6"],
  ["tru", "EOF while parsing a value at line 1 column 3"],
  ["nope", "expected ident at line 1 column 2"],
  ["1 2", "trailing characters at line 1 column 3"],
  ['"abc', "EOF while parsing a string at line 1 column 4"],
  ["{'a':1}", "key must be a string at line 1 column 2"],
  ["01", "invalid number at line 1 column 2"],
  ["1.", "EOF while parsing a value at line 1 column 2"],
  ["-", "EOF while parsing a value at line 1 column 1"],
  ["[1,]", "trailing comma at line 1 column 4"],
  ['{"a":1,}', "trailing comma at line 1 column 8"],
  ['"\\x"', "invalid escape at line 1 column 3"],
  ['"a\u0001"', "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3"],
  ["\n\n  x", "expected value at line 3 column 3"],
  ["[1 2]", "expected `,` or `]` at line 1 column 4"],
  ['"\\ud800"', "unexpected end of hex escape at line 1 column 8"],
  ['"\\u12"', "EOF while parsing a string at line 1 column 6"],
  ["-a", "invalid number at line 1 column 2"],
  ["[", "EOF while parsing a list at line 1 column 1"],
  ["{", "EOF while parsing an object at line 1 column 1"],
  ['{"a":1', "EOF while parsing an object at line 1 column 6"],
  ['"\\uDC00"', "lone leading surrogate in hex escape at line 1 column 7"],
  ['"\\ud800\\u0041"', "lone leading surrogate in hex escape at line 1 column 13"],
  ['{"a":1 "b"}', "expected `,` or `}` at line 1 column 8"],
  ["[1,,2]", "expected value at line 1 column 4"],
  ["1.5e+", "EOF while parsing a value at line 1 column 5"],
  ['"\\u00zz"', "invalid escape at line 1 column 7"],
  ["1.e5", "invalid number at line 1 column 3"],
  ["[]]", "trailing characters at line 1 column 3"],
  ['"é\u0001"', "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 4"],
  ["é", "expected value at line 1 column 1"],
  ['{"a":1,', "EOF while parsing a value at line 1 column 7"],
  ["[".repeat(200) + "]".repeat(200), "recursion limit exceeded at line 1 column 128"],
  // Accepted: numbers keep arbitrary precision, whitespace around the value.
  ["1e999", undefined],
  ["99999999999999999999999", undefined],
  ["\t\r\n1", undefined],
  ['{"a":[1,{"b":null}],"c":"\\ud83d\\ude00"}', undefined],
];

describe("jsonSyntaxError()", () => {
  it.each(observed)("words %j as Codex does", (text, expected) => {
    expect(jsonSyntaxError(new TextEncoder().encode(text))).toBe(expected);
  });

  it("reports invalid UTF-8 in a string where the string closes", () => {
    expect(jsonSyntaxError(new Uint8Array([0x22, 0xff, 0x22]))).toBe("invalid unicode code point at line 1 column 3");
  });
});
