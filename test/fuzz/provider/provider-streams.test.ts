// Fuzzing the providers' SSE stream parsers (docs/testing.md#fuzzing).
import { describe } from "vitest";
import { providerStreamProperties } from "../properties/provider-streams.ts";
import { testProperties } from "../support/fuzz-property.ts";

describe("provider streams under arbitrary cuts, truncations and garbage", () => testProperties(providerStreamProperties));
