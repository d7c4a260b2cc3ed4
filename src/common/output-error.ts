import { InputError } from "./input-error.js";

/**
 * A file or directory the user named cannot be written: the disk is full, the file system is
 * read-only, a file stands where a directory is expected, no permission. Not a bug of eosfuzz:
 * exit 2 with one line naming the user's path (never a temporary file's), like bad input.
 */
export class OutputError extends InputError {
  constructor(
    path: string,
    readonly what: string,
    readonly reason: string,
    readonly code: string | null = null,
  ) {
    super(path, "", `expected a place to write ${what}, found ${reason}`);
  }
}

/** The cause of a failed write in a few words, with its error code. */
export function describeWriteFailure(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  switch (e?.code) {
    case "ENOSPC":
      return "no space left on the device (ENOSPC)";
    case "EDQUOT":
      return "the disk quota used up (EDQUOT)";
    case "EROFS":
      return "a read-only file system (EROFS)";
    case "EACCES":
    case "EPERM":
      return `no permission to write there (${e.code})`;
    case "EISDIR":
      return "a directory where a file is expected (EISDIR)";
    case "ENOTDIR":
    case "EEXIST":
      return `a file where a directory is expected (${e.code})`;
    case "ENOENT":
      return "a directory that does not exist and cannot be created (ENOENT)";
    case "EMFILE":
    case "ENFILE":
      return `too many open files (${e.code})`;
    case "EFBIG":
      return "a file bigger than the file system allows (EFBIG)";
    case "EIO":
      return "an input/output error of the device (EIO)";
    default:
      return e?.code ? `an error (${e.code})` : `an error (${(e as Error)?.message?.split("\n")[0] ?? String(e)})`;
  }
}

/** Error codes of the user's environment (disk, permissions, paths): exit 2, never an internal error. */
export const ENVIRONMENT_ERROR_CODES: ReadonlySet<string> = new Set([
  "ENOSPC",
  "EDQUOT",
  "EROFS",
  "EACCES",
  "EPERM",
  "EISDIR",
  "ENOTDIR",
  "EEXIST",
  "ENOENT",
  "EMFILE",
  "ENFILE",
  "EFBIG",
  "EIO",
  "ENAMETOOLONG",
  "ELOOP",
  "EBUSY",
  "ETXTBSY",
  "EXDEV",
]);

/** An error thrown while writing `path` as an OutputError (an OutputError already made is kept). */
export function outputErrorOf(path: string, what: string, error: unknown): OutputError {
  if (error instanceof OutputError) return error;
  return new OutputError(path, what, describeWriteFailure(error), (error as NodeJS.ErrnoException)?.code ?? null);
}
