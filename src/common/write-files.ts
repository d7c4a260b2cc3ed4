import { closeSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize, sep } from "node:path";
import { Chunker, emitJson } from "./json-pieces.js";
import { OutputError, outputErrorOf } from "./output-error.js";

let tmpCounter = 0;

/**
 * Make `dir` and its missing parents, one level at a time. Node's mkdirSync(dir, { recursive: true })
 * loops forever where a parent exists but a child cannot be made in it (under /proc); this stops at
 * the first level that fails. A file where a directory is expected, or any other failure, is an
 * OutputError naming that path as the user wrote it.
 */
export function ensureDir(dir: string, what = "a directory"): void {
  const normal = normalize(dir);
  const parts = normal.split(sep).filter((p) => p !== "" && p !== ".");
  let prefix = isAbsolute(normal) ? sep : "";
  for (const part of parts) {
    prefix = prefix === "" ? part : join(prefix, part);
    if (part === "..") continue;
    let isDir: boolean | null = null;
    try {
      isDir = statSync(prefix).isDirectory();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT") throw outputErrorOf(prefix, what, e);
    }
    if (isDir === true) continue;
    if (isDir === false)
      throw new OutputError(prefix, what, "a file where a directory is expected (ENOTDIR)", "ENOTDIR");
    try {
      mkdirSync(prefix);
    } catch (e) {
      // Made meanwhile by another process: fine if it is a directory.
      if ((e as NodeJS.ErrnoException).code === "EEXIST" && isDirectory(prefix)) continue;
      throw outputErrorOf(prefix, what, e);
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Content to write: text, or a function that hands it over in pieces (see emitJson). */
export type FileContent = string | ((write: (piece: string) => void) => void);

function writeChunk(fd: number, chunk: string): void {
  const bytes = Buffer.from(chunk, "utf8");
  let written = 0;
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
}

/** Write all of `content` to an open file, in chunks of about a megabyte. */
function writeAll(fd: number, content: FileContent): void {
  if (typeof content === "string") {
    writeChunk(fd, content);
    return;
  }
  const chunker = new Chunker((chunk) => writeChunk(fd, chunk));
  content(chunker.push);
  chunker.end();
}

/**
 * Write then rename: a kill at any moment leaves either the old file or the new one. `content` may
 * come in pieces (a report longer than V8's longest string). A failure (disk full, read-only file
 * system, a directory in the way) removes the temporary file and is an OutputError naming `path`.
 */
export function writeFileAtomic(path: string, content: FileContent, what = "a file"): void {
  ensureDir(dirname(path), what);
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${tmpCounter++}.tmp`);
  let fd: number | null = null;
  try {
    fd = openSync(tmp, "wx");
    writeAll(fd, content);
    closeSync(fd);
    fd = null;
    if (isDirectory(path)) throw Object.assign(new Error("a directory"), { code: "EISDIR" });
    renameSync(tmp, path);
  } catch (e) {
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {
        // already failing: the first error is the one to report
      }
    }
    try {
      unlinkSync(tmp);
    } catch {
      // never made, or already gone
    }
    throw outputErrorOf(path, what, e);
  }
}

/** JSON indented by two spaces, written in pieces (never one string of the whole value). */
export function writeJsonAtomic(path: string, value: unknown, what = "a JSON file"): void {
  writeFileAtomic(
    path,
    (write) => {
      emitJson(value, 2, write);
      write("\n");
    },
    what,
  );
}
