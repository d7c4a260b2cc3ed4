import { closeSync, constants, openSync, readFileSync, readSync, statSync } from "node:fs";
import { InputError } from "./input-error.js";

// Reading a user's files, apart from input-error.ts: the public API's types (which name InputError)
// then do not mention Buffer, so a project needs no Node type definitions to use them.

/** Read a user's file as UTF-8 text, or fail with one line (unreadable, or bigger than `maxBytes`). */
export function readInputFile(path: string, maxBytes: number, what: string): string {
  return readInputBytes(path, maxBytes, what).toString("utf8");
}

/**
 * Read a user's file, or fail with one line. A regular file's size is checked before reading, so a
 * huge file is refused instead of filling memory (a pipe, as from `<(...)`, is checked once read).
 */
export function readInputBytes(path: string, maxBytes: number, what: string): Buffer {
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw Object.assign(new Error("a directory"), { code: "EISDIR" });
    if (stat.isFile() && stat.size > maxBytes)
      throw new InputError(path, "", `expected ${what} under ${maxBytes} bytes, found ${stat.size}`);
    const buffer = stat.isFIFO() ? readPipe(path, maxBytes, what) : readFileSync(path);
    if (buffer.length > maxBytes)
      throw new InputError(path, "", `expected ${what} under ${maxBytes} bytes, found ${buffer.length}`);
    return buffer;
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const found =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "a directory"
          : `a file it cannot read (${code ?? (e as Error).message})`;
    throw new InputError(path, "", `expected ${what}, found ${found}`);
  }
}

/** A named pipe with no writer this long is given up (reading it would wait for ever). */
export const PIPE_LIMITS = { noWriterMs: 5_000, silentWriterMs: 60_000 };

/**
 * Read a named pipe (a FIFO, or `<(...)`) without hanging: opened non-blocking, read while a writer
 * sends, given up with one line when no writer comes (or one sends nothing) for too long.
 */
function readPipe(path: string, maxBytes: number, what: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const chunk = Buffer.alloc(64 * 1024);
  const chunks: Buffer[] = [];
  let total = 0;
  let writer = false;
  let waitedMs = 0;
  try {
    for (;;) {
      let n = -1;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
        writer = true; // a writer is there, with nothing to say yet
      }
      if (n > 0) {
        writer = true;
        waitedMs = 0;
        chunks.push(Buffer.from(chunk.subarray(0, n)));
        total += n;
        if (total > maxBytes) throw new InputError(path, "", `expected ${what} under ${maxBytes} bytes, found more`);
        continue;
      }
      if (n === 0 && writer) break; // the writer closed its end: all there is
      const limit = writer ? PIPE_LIMITS.silentWriterMs : PIPE_LIMITS.noWriterMs;
      if (waitedMs >= limit)
        throw new InputError(
          path,
          "",
          `expected ${what}, found a named pipe ${writer ? "whose writer sent nothing" : "with no writer"} for ${limit / 1000} s`,
        );
      Atomics.wait(sleeper, 0, 0, 20);
      waitedMs += 20;
    }
  } finally {
    closeSync(fd);
  }
  return Buffer.concat(chunks);
}
