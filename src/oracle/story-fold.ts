/**
 * A story's lines with a loop told once: when the same steps repeat (a marker re-sent and refused
 * a hundred times), the first and last rounds stay and one line says how many rounds lie between.
 * Steps are the same when they differ only in their numbers (times, copies, request ids).
 */
export function foldRepeats(lines: readonly string[]): string[] {
  const shape = (line: string) => line.replace(/^t=\d+ms\s*/, "").replace(/\d+/g, "#");
  const shapes = lines.map(shape);
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const fold = longestLoopAt(shapes, i);
    if (fold === null) {
      out.push(lines[i] as string);
      i += 1;
      continue;
    }
    const { size, rounds } = fold;
    out.push(...lines.slice(i, i + size));
    const between = rounds - 2;
    const until = /^t=(\d+)ms/.exec(lines[i + (rounds - 1) * size] ?? "")?.[1];
    out.push(
      `${"".padEnd(10)}... the same ${size === 1 ? "step" : `${size} steps`} ${between} more time${between === 1 ? "" : "s"}${until ? `, until t=${until}ms` : ""}`,
    );
    out.push(...lines.slice(i + (rounds - 1) * size, i + rounds * size));
    i += rounds * size;
  }
  return out;
}

/** Rounds told in full before a loop is folded (the first and the last); folding fewer saves nothing. */
const MIN_ROUNDS = 4;

/** The loop of 1 to 4 steps starting at `at` that repeats most, if it repeats at least MIN_ROUNDS times. */
function longestLoopAt(shapes: readonly string[], at: number): { size: number; rounds: number } | null {
  let best: { size: number; rounds: number } | null = null;
  for (let size = 1; size <= 4; size++) {
    let rounds = 1;
    while (
      at + (rounds + 1) * size <= shapes.length &&
      shapes.slice(at + rounds * size, at + (rounds + 1) * size).every((s, k) => s === shapes[at + k])
    )
      rounds++;
    if (rounds >= MIN_ROUNDS && (best === null || rounds * size > best.rounds * best.size)) best = { size, rounds };
  }
  return best;
}
