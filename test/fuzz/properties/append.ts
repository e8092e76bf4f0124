// Properties of how a BidiAppend's data is decoded (src/core/bytes.ts,
// src/proto/frames.ts, as src/cursor/routes/agent-routes.ts chains them): hex and the
// protobuf messages round-trip, and garbage gives `undefined` or an Error the
// route turns into invalid_argument, never a hang.
import { create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { expect } from "vitest";
import { fromHex, toHex } from "../../../src/core/bytes.ts";
import { decodeClientMessage } from "../../../src/proto/frames.ts";
import { AgentClientMessageSchema, type AgentClientMessage } from "../../../src/proto/gen/agent/v1/agent_pb.ts";
import { BidiAppendRequestSchema } from "../../../src/proto/gen/aiserver/v1/aiserver_pb.ts";
import type { FuzzProperty } from "../support/fuzz-property.ts";
import { messageArbitrary } from "../support/proto-arbitrary.ts";

const HEX_DIGIT = fc.constantFrom(..."0123456789abcdefABCDEF");

export const appendProperties: FuzzProperty[] = [
  {
    name: "bytes to hex and back are the same bytes, whatever the case of the digits",
    runs: 300,
    property: fc.property(fc.uint8Array({ maxLength: 200 }), fc.boolean(), (bytes, upper) => {
      const hex = toHex(bytes);
      expect(hex).toMatch(/^[0-9a-f]*$/);
      expect(hex).toHaveLength(bytes.byteLength * 2);
      expect([...fromHex(upper ? hex.toUpperCase() : hex)!]).toEqual([...bytes]);
    }),
  },
  {
    name: "any string is hex of whole bytes (and decodes to them) or undefined, never a throw",
    runs: 500,
    property: fc.property(fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: HEX_DIGIT, maxLength: 40 })), (text) => {
      const bytes = fromHex(text);
      const isHex = text.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(text);
      if (isHex) expect(toHex(bytes!)).toBe(text.toLowerCase());
      else expect(bytes).toBeUndefined();
    }),
  },
  {
    name: "an AgentClientMessage through BidiAppend (protobuf, hex, protobuf) decodes to the message sent",
    runs: 200,
    property: fc.property(
      messageArbitrary<AgentClientMessage>(AgentClientMessageSchema),
      fc.string({ minLength: 1, maxLength: 40 }),
      fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }),
      (message, requestId, seqno) => {
        const body = toBinary(
          BidiAppendRequestSchema,
          create(BidiAppendRequestSchema, {
            data: toHex(toBinary(AgentClientMessageSchema, message)),
            requestId: { requestId },
            appendSeqno: seqno,
          }),
        );
        const append = fromBinary(BidiAppendRequestSchema, body);
        expect(append.requestId?.requestId).toBe(requestId);
        expect(append.appendSeqno).toBe(seqno);
        const decoded = decodeClientMessage(fromHex(append.data)!);
        expect(equals(AgentClientMessageSchema, decoded, message)).toBe(true);
      },
    ),
  },
  {
    name: "garbage as a BidiAppend body or as its data decodes or throws an Error, never anything else",
    runs: 500,
    property: fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
      for (const decode of [() => fromBinary(BidiAppendRequestSchema, bytes), () => decodeClientMessage(bytes)]) {
        try {
          decode();
        } catch (error) {
          expect(error).toBeInstanceOf(Error);
        }
      }
    }),
  },
];
