import { z } from "zod";

/*
 * The pieces a fault's settings are written with in a scenario (a probability, a duration, a
 * [min, max] range of milliseconds) and their conversion to what the model draws with. Here, below
 * the scenario schema, so a fault's file can declare its own settings (src/kafka/faults/).
 */

/** The longest virtual time a run may reach (the scenario schema's LIMITS.virtualTimeMs). */
export const MAX_VIRTUAL_TIME_MS = 86_400_000;

export const ms = (max: number = MAX_VIRTUAL_TIME_MS) => z.int().min(0).max(max);

export const range = (max: number = MAX_VIRTUAL_TIME_MS) =>
  z
    .tuple([z.int().min(0).max(max), z.int().min(0).max(max)])
    .refine(([a, b]) => a <= b, { message: "expected [min, max] with min <= max" });

export const probability = z.number().min(0).max(1);

/** An inclusive range the model draws from. */
export interface Range {
  min: number;
  max: number;
}

/** Probabilities are written as decimals in scenarios and used as parts per million in the model. */
export function ppm(probability: number): number {
  return Math.round(probability * 1_000_000);
}

/** A scenario's [min, max] as the model's Range. */
export function toRange([min, max]: readonly [number, number]): Range {
  return { min, max };
}
