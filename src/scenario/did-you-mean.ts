/**
 * "Did you mean" for what a user types: option names, scenario keys and values, scenario names,
 * strategies. A typo is a word within a small edit distance of a known one, a known word it is a
 * prefix of, or the same word spelt another way (case, dots, dashes, underscores).
 */

/** Edit distance of two words (insertions, deletions, substitutions, swaps of neighbours). */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)] as number[]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** A word without its spelling: lower case, no dots, dashes or underscores. */
function folded(word: string): string {
  return word.toLowerCase().replace(/[._-]/g, "");
}

/** How far `typed` is from `known` (0 for the same word spelt another way, 0.5 for a prefix). */
function distance(typed: string, known: string): number {
  if (folded(typed) === folded(known)) return 0;
  if (typed.length >= 3 && known.startsWith(typed)) return 0.5;
  return editDistance(typed, known);
}

/**
 * The known words closest to `typed`, nearest first (ties in the order given), at most `max`; only
 * those near enough to be a typo of it (about one edit in three letters), and within one edit of
 * the nearest.
 */
export function closestNames(typed: string, known: readonly string[], max = 3): string[] {
  const limit = Math.max(1, Math.floor(typed.length / 3));
  const near = known
    .map((name, i) => ({ name, i, d: distance(typed, name) }))
    .filter((c) => c.d <= limit)
    .sort((a, b) => a.d - b.d || a.i - b.i);
  // Only the nearest few: one letter off is a typo, four letters off beside it is noise.
  const best = near[0]?.d ?? 0;
  return near
    .filter((c) => c.d <= best + 1)
    .slice(0, max)
    .map((c) => c.name);
}

/** " (did you mean a or b?)", or "" when nothing known is close. `quote` writes each suggestion as shown. */
export function didYouMean(
  typed: string,
  known: readonly string[],
  quote: (name: string) => string = (name) => name,
): string {
  const names = closestNames(typed, known).map(quote);
  if (names.length === 0) return "";
  const list = names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
  return ` (did you mean ${list}?)`;
}

/** Longest list of choices said whole in a one-line message; a longer one is named by where it is listed. */
const MAX_LISTED_CHARS = 240;

/**
 * "expected one of a, b, c, found "x" (did you mean b?)": the choices whole, or when they are too
 * many for a line, how many and where they are listed (never a list cut short); what was typed; and
 * what it may have meant.
 */
export function notOneOf(typed: string, known: readonly string[], listedBy: string): string {
  const shown = typed.length > 60 ? `${JSON.stringify(typed.slice(0, 60)).slice(0, -1)}..."` : JSON.stringify(typed);
  const close = didYouMean(typed, known);
  const list = known.join(", ");
  return list.length <= MAX_LISTED_CHARS
    ? `expected one of ${list}, found ${shown}${close}`
    : `expected one of the ${known.length} listed by ${listedBy}, found ${shown}${close}`;
}
