import { describe, expect, it } from "vitest";
import { assert, isInt16, isInt32, isInt64, ModelAssertionError } from "../../src/kafka/common/assert.js";
import { ProducerIdManager } from "../../src/kafka/coordinator/producer-id-manager.js";
import { TransactionMetadata } from "../../src/kafka/coordinator/transaction-metadata.js";

describe("the model's assertions", () => {
  it("throw ModelAssertionError, building the message only on failure", () => {
    let built = 0;
    const message = () => {
      built++;
      return "broken";
    };
    assert(true, message);
    expect(built).toBe(0);
    expect(() => assert(false, message)).toThrow(ModelAssertionError);
    expect(() => assert(false, "plain")).toThrow("plain");
  });

  it("know Kafka's integer types", () => {
    expect([isInt16(32_767), isInt16(-32_768), isInt16(32_768), isInt16(1.5)]).toEqual([true, true, false, false]);
    expect([isInt32(2 ** 31 - 1), isInt32(2 ** 31)]).toEqual([true, false]);
    expect([isInt64(2 ** 53 - 1), isInt64(2 ** 53), isInt64(Number.NaN)]).toEqual([true, false, false]);
  });

  it("refuse a producer id manager that would hand out a negative or fractional id", () => {
    expect(new ProducerIdManager(0).generateProducerId()).toBe(0);
    expect(() => new ProducerIdManager(-1)).toThrow(ModelAssertionError);
    expect(() => new ProducerIdManager(1.5)).toThrow(ModelAssertionError);
  });

  it("refuse a TransactionMetadata whose fields leave Kafka's types", () => {
    expect(new TransactionMetadata("t", -1, -1, 60_000, 0).producerEpoch).toBe(-1);
    expect(() => new TransactionMetadata("", 1, 0, 60_000, 0)).toThrow(ModelAssertionError);
    expect(() => new TransactionMetadata("t", 1, 32_768, 60_000, 0)).toThrow("not a short");
    expect(() => new TransactionMetadata("t", 1.5, 0, 60_000, 0)).toThrow(ModelAssertionError);
    expect(() => new TransactionMetadata("t", 1, 0, 2 ** 31, 0)).toThrow("not an int");
  });
});
