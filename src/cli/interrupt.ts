/**
 * SIGINT and SIGTERM as the command line handles them, from the first moment of the process (main.ts
 * installs the handlers before it loads anything else): a signal that comes while modules load or
 * arguments are checked is kept, and the command sees it as soon as it starts. `run` finishes
 * gracefully (the runs in flight, then the partial report, exit 130); every other command is
 * ended by the signal at once. A second signal always exits 130 at once.
 */

export const EXIT_INTERRUPTED = 130;

const controller = new AbortController();
let signals = 0;
let graceful: ((signal: NodeJS.Signals) => void) | null = null;
let installed = false;

/** Aborted at the first SIGINT or SIGTERM. */
export const interruption: AbortSignal = controller.signal;

function onSignal(signal: NodeJS.Signals): void {
  signals++;
  if (signals > 1) process.exit(EXIT_INTERRUPTED);
  controller.abort();
  // Before a command said how it stops (while modules load), the signal is only kept.
  if (graceful) graceful(signal);
}

/** Listen for SIGINT and SIGTERM (once per process). */
export function installSignalHandlers(): void {
  if (installed) return;
  installed = true;
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
}

/** Whether the handlers are in place (the CLI's process, not a test calling runCli in-process). */
export function signalHandlersInstalled(): boolean {
  return installed;
}

/**
 * The running command stops gracefully: `onFirst` is called at the first signal (at once if one
 * came already). Returns a function that ends this (a later first signal then exits 130 at once).
 */
export function stopGracefully(onFirst: (signal: NodeJS.Signals) => void): () => void {
  graceful = onFirst;
  if (controller.signal.aborted) onFirst("SIGINT");
  return () => {
    if (graceful === onFirst) graceful = exitAtOnce;
  };
}

/** A command that cannot stop half way: a signal ends the process with 130 (after a signal kept from before it began, too). */
export function exitAtOnce(): void {
  process.exit(EXIT_INTERRUPTED);
}

/**
 * For commands with no graceful stop (they work synchronously, so a handler would only run once
 * they are done): a signal that came already exits 130 now; from now on the signal's default
 * action ends the process at once (a shell reports 130 for SIGINT).
 */
export function stopAtOnce(): void {
  if (!installed) return;
  if (controller.signal.aborted) exitAtOnce();
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  installed = false;
}
