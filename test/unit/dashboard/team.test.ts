// The Team page's number fields (dashboard/src/team/numbers.ts): blank is "none",
// digit groups are allowed, anything else is refused with a message.
import { describe, expect, it } from "vitest";
import { budgetText, parseWhole, wholeText } from "../../../dashboard/src/team/numbers.ts";

describe("team number fields", () => {
  it("reads blank as null and digit groups as the number", () => {
    expect(parseWhole("  ", 1)).toEqual({ value: null });
    expect(parseWhole("50,000,000", 0)).toEqual({ value: 50_000_000 });
    expect(parseWhole("1_000", 0)).toEqual({ value: 1000 });
  });

  it("writes a stored value back in a form it reads again, and null as empty", () => {
    expect(wholeText(40_000_000)).toBe("40,000,000");
    expect(parseWhole(wholeText(40_000_000), 0)).toEqual({ value: 40_000_000 });
    expect(wholeText(null)).toBe("");
  });

  it("refuses fractions, negatives, words and values under the minimum", () => {
    for (const text of ["1.5", "-3", "ten", "1e6"]) expect(parseWhole(text, 0)).toHaveProperty("error");
    expect(parseWhole("0", 1)).toEqual({ error: "Enter at least 1, or leave it empty for none." });
    expect(parseWhole("0", 0)).toEqual({ value: 0 });
  });

  it("says the budget used as X of Y tokens (Z%), or that there is none", () => {
    const f = (n: number) => n.toLocaleString("en-US");
    expect(budgetText(1_200, 50_000, f)).toBe("1,200 of 50,000 tokens (2.4%)");
    expect(budgetText(45_000, 50_000, f)).toBe("45,000 of 50,000 tokens (90%)");
    expect(budgetText(7, null, f)).toBe("7 tokens used; no monthly budget set");
    expect(budgetText(5, 0, f)).toBe("5 of 0 tokens (100%)");
  });
});
