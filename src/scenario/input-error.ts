/**
 * Bad input from a user: a scenario, a seed file, a flag. Printed as one line
 * (`file:line:col field: what was expected, what was found`) with exit code 2, never a stack.
 */
export class InputError extends Error {
  override readonly name = "InputError";
  constructor(
    readonly file: string,
    readonly field: string,
    readonly problem: string,
    readonly position: { line: number; col: number } | null = null,
  ) {
    super(formatInputError(file, field, problem, position));
  }
}

export function formatInputError(file: string, field: string, problem: string, position: { line: number; col: number } | null): string {
  const where = position ? `${file}:${position.line}:${position.col}` : file;
  return field ? `${where} ${field}: ${problem}` : `${where}: ${problem}`;
}
