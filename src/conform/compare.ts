/**
 * The first place where two answers differ: a path into the reply ("state.producers[0].producerEpoch")
 * and both values. Keys that only one side has are compared too (a missing field is a difference),
 * except those listed in `ignored` (informative fields such as an exception's class or message).
 */
export interface FieldDifference {
  path: string;
  model: unknown;
  kafka: unknown;
}

export function firstDifference(
  model: unknown,
  kafka: unknown,
  ignored: ReadonlySet<string> = new Set(),
  path = "",
): FieldDifference | null {
  if (Object.is(model, kafka)) return null;
  if (Array.isArray(model) && Array.isArray(kafka)) {
    const n = Math.max(model.length, kafka.length);
    for (let i = 0; i < n; i++) {
      if (i >= model.length || i >= kafka.length) return { path: `${path}[${i}]`, model: model[i], kafka: kafka[i] };
      const d = firstDifference(model[i], kafka[i], ignored, `${path}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (isObject(model) && isObject(kafka)) {
    const keys = [...new Set([...Object.keys(model), ...Object.keys(kafka)])];
    for (const key of keys) {
      if (ignored.has(key)) continue;
      const d = firstDifference(model[key], kafka[key], ignored, path ? `${path}.${key}` : key);
      if (d) return d;
    }
    return null;
  }
  return { path, model, kafka };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
