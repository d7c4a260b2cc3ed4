import type { z } from "zod";

/**
 * What a schema expects at a path of its value: the fields of a map (for did-you-mean on a key
 * nobody knows), the schema of one field (to check a `--set` value before it is applied). Reads
 * zod's definitions: wrappers (default, optional, nullable, pipe) are looked through.
 */
type Schema = z.core.$ZodType;
type Path = readonly (string | number)[];

interface Def {
  type: string;
  innerType?: Schema;
  in?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  items?: Schema[];
  valueType?: Schema;
  options?: Schema[];
}

const defOf = (s: Schema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(["default", "prefault", "optional", "nullable", "readonly", "catch", "nonoptional"]);

/** The schema without its wrappers (a field's default, optional, nullable). */
export function unwrapped(s: Schema): Schema {
  let current = s;
  for (let i = 0; i < 16; i++) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else break;
  }
  return current;
}

/** The schema of the value one step below `s` (a field, an element), or null when there is none. */
function child(s: Schema, key: string | number): Schema | null {
  const def = defOf(unwrapped(s));
  switch (def.type) {
    case "object":
      return typeof key === "string" ? (def.shape?.[key] ?? null) : null;
    case "array":
      return typeof key === "number" ? (def.element ?? null) : null;
    case "tuple":
      return typeof key === "number" ? (def.items?.[key] ?? null) : null;
    case "record":
      return def.valueType ?? null;
    case "union":
      for (const option of def.options ?? []) {
        const found = child(option, key);
        if (found) return found;
      }
      return null;
    default:
      return null;
  }
}

/** The schema at `path` below `root` (with its wrappers), or null when the path names nothing. */
export function schemaAt(root: Schema, path: Path): Schema | null {
  let s: Schema | null = root;
  for (const key of path) {
    if (!s) return null;
    s = child(s, key);
  }
  return s;
}

/** The field names of the map at `path` ([] when the path is no map: a list, a value, a union of shapes). */
export function keysAt(root: Schema, path: Path): string[] {
  const s = schemaAt(root, path);
  if (!s) return [];
  const def = defOf(unwrapped(s));
  if (def.type === "object") return Object.keys(def.shape ?? {});
  if (def.type === "union")
    return [...new Set((def.options ?? []).flatMap((o) => keysAt(o, [])))].sort((a, b) => a.localeCompare(b));
  return [];
}

/** What kind of value the schema at `path` is: "map", "list" or "value" (null: nothing there). */
export function shapeAt(root: Schema, path: Path): "map" | "list" | "value" | null {
  const s = schemaAt(root, path);
  if (!s) return null;
  const type = defOf(unwrapped(s)).type;
  if (type === "object" || type === "record") return "map";
  if (type === "array" || type === "tuple") return "list";
  return "value";
}
