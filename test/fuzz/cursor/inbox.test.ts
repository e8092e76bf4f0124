// Fuzzing the ordering of appends by seqno (docs/testing.md#fuzzing).
import { describe } from "vitest";
import { inboxProperties } from "../properties/inbox.ts";
import { testProperties } from "../support/fuzz-property.ts";

describe("the ordered inbox under any arrival order", () => testProperties(inboxProperties));
