/**
 * Output that follows the terminal's width: tables sized to it, long lines wrapped under their own
 * text. A pipe or a file is no terminal: its lines stay whole (for grep and logs) unless COLUMNS
 * says how wide to be.
 */

/** Narrower than this, wrapping makes text harder to read, not easier. */
const MIN_WIDTH = 40;

/** The columns stdout shows: the terminal's, else COLUMNS, else null (no limit). */
export function outputWidth(
  stream: { isTTY?: boolean; columns?: number } = process.stdout,
  env: Record<string, string | undefined> = process.env,
): number | null {
  const columns = stream.isTTY && stream.columns ? stream.columns : Number(env.COLUMNS);
  return Number.isInteger(columns) && columns > 0 ? Math.max(MIN_WIDTH, columns) : null;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what is measured around
const ANSI = /\u001b\[[0-9;]*m/g;

/** How many columns text takes on a terminal (colour codes take none). */
export function visibleLength(text: string): number {
  return text.replace(ANSI, "").length;
}

/** A table drawn with box characters: sized when drawn, never wrapped afterwards. */
const TABLE_LINE = /^\s*[┌│├└]/;

/**
 * Where a wrapped line's continuation starts: under the text after its last gap of two or more
 * spaces in the first half of the line (a step's time, a table-like column), else two columns in.
 */
function hangOf(line: string, width: number): number {
  const plain = line.replace(ANSI, "");
  const lead = /^\s*/.exec(plain)?.[0].length ?? 0;
  let hang = lead + 2;
  for (const gap of plain.slice(lead, Math.floor(width / 2)).matchAll(/ {2,}/g))
    hang = lead + (gap.index ?? 0) + gap[0].length;
  return Math.min(hang, Math.floor(width / 2));
}

/** One line cut into lines of at most `width` columns, at spaces where it can. */
function wrapLine(line: string, width: number): string[] {
  if (visibleLength(line) <= width || TABLE_LINE.test(line.replace(ANSI, ""))) return [line];
  const hang = " ".repeat(hangOf(line, width));
  const lead = /^\s*/.exec(line)?.[0] ?? "";
  const words = unbrokenCommand(line.slice(lead.length).split(" "));
  const out: string[] = [];
  let current = lead;
  let currentLength = lead.length;
  const start = () => out.length > 0;
  for (const word of words) {
    const length = visibleLength(word);
    const gap = currentLength > (start() ? hang.length : lead.length) ? 1 : 0;
    if (currentLength + gap + length <= width || currentLength === (start() ? hang.length : lead.length)) {
      current += (gap ? " " : "") + word;
      currentLength += gap + length;
      continue;
    }
    out.push(current);
    current = hang + word;
    currentLength = hang.length + length;
  }
  out.push(current);
  // A word longer than the line is cut where the line ends (a path, a hash list); a command is not.
  return out.flatMap((l) => (l.includes("eosfuzz ") ? [l] : hardCut(l, width, hang)));
}

/** A command to copy (from `eosfuzz` to the end of the line) is one word: it goes on a line of its own, whole. */
function unbrokenCommand(words: string[]): string[] {
  const at = words.findIndex((w, i) => w.replace(ANSI, "") === "eosfuzz" && i + 1 < words.length);
  return at < 0 ? words : [...words.slice(0, at), words.slice(at).join(" ")];
}

function hardCut(line: string, width: number, hang: string): string[] {
  if (visibleLength(line) <= width || line.length !== visibleLength(line)) return [line];
  const out = [line.slice(0, width)];
  for (let at = width; at < line.length; at += width - hang.length)
    out.push(hang + line.slice(at, at + width - hang.length));
  return out;
}

/** Text with every line wider than `width` wrapped (null: unchanged). */
export function wrapToWidth(text: string, width: number | null): string {
  if (width === null) return text;
  return text
    .split("\n")
    .flatMap((line) => wrapLine(line, width))
    .join("\n");
}

/** Text fitted to stdout's width (see outputWidth). */
export function fitted(text: string): string {
  return wrapToWidth(text, outputWidth());
}
