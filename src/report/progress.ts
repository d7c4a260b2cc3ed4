import cliProgress from "cli-progress";

/** How a campaign tells a person how far it is. */
export interface Progress {
  /** After each seed: seeds done so far and violations found so far. */
  update(done: number, violations: number): void;
  stop(): void;
}

/** Default interval of the heartbeat line when stderr is not a terminal (CI logs, pipes). */
export const DEFAULT_HEARTBEAT_MS = 10_000;

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
}

const plural = (n: number, word: string) => `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;

/**
 * Speed and time left from the runs made since this process started: runs read back by --resume
 * were not made now, and counting them would make the speed too high and the ETA too short.
 * (cli-progress's own ETA, over its last updates, is wrong when results come in bursts, a batch
 * of a worker at a time: it reads a burst as a near-infinite speed.)
 */
export function rateAndEta(
  done: number,
  alreadyDone: number,
  total: number,
  elapsedMs: number,
): { rate: number; etaMs: number } {
  const made = done - alreadyDone;
  const rate = made / Math.max(elapsedMs / 1000, 0.001);
  return { rate, etaMs: made > 0 ? ((total - done) / rate) * 1000 : Number.NaN };
}

/** One heartbeat line: what a CI log shows every few seconds. */
export function heartbeatLine(
  scenario: string,
  done: number,
  total: number,
  violations: number,
  elapsedMs: number,
  alreadyDone = 0,
): string {
  const { rate, etaMs } = rateAndEta(done, alreadyDone, total, elapsedMs);
  const percent = Math.floor((done / Math.max(total, 1)) * 100);
  return `eosfuzz ${scenario}: ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} seeds (${percent}%), ${rate.toFixed(1)} seeds/s, ${plural(violations, "violation")}, ETA ${formatDuration(etaMs)}`;
}

/** A bar on an interactive stderr (seeds, seeds/s, violations, ETA), cleared when the run ends. */
function bar(stream: NodeJS.WriteStream, total: number, alreadyDone: number, now: () => number): Progress {
  const started = now();
  const b = new cliProgress.SingleBar(
    {
      stream,
      format: "  {bar} {value}/{total} seeds | {speed} seeds/s | {violations} | ETA {eta_text}",
      barsize: 30,
      hideCursor: true,
      clearOnComplete: true,
      fps: 8,
    },
    cliProgress.Presets.shades_classic,
  );
  b.start(total, alreadyDone, { speed: "0.0", violations: plural(0, "violation"), eta_text: "?" });
  let stopped = false;
  return {
    update(done, violations) {
      // After stop, an update would draw the bar again (and restart its timer) inside what follows.
      if (stopped) return;
      const { rate, etaMs } = rateAndEta(done, alreadyDone, total, now() - started);
      b.update(done, {
        speed: rate.toFixed(1),
        violations: plural(violations, "violation"),
        eta_text: formatDuration(etaMs),
      });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      b.stop();
    },
  };
}

/** A line every `intervalMs` on a non-interactive stderr, so a long CI job shows it is alive. */
function heartbeat(
  stream: NodeJS.WritableStream,
  scenario: string,
  total: number,
  alreadyDone: number,
  intervalMs: number,
  now: () => number,
): Progress {
  const started = now();
  let last = started;
  let stopped = false;
  return {
    update(done, violations) {
      const t = now();
      if (stopped || t - last < intervalMs || done >= total) return;
      last = t;
      stream.write(`${heartbeatLine(scenario, done, total, violations, t - started, alreadyDone)}\n`);
    },
    stop() {
      stopped = true;
    },
  };
}

const silent: Progress = { update() {}, stop() {} };

export interface ProgressOptions {
  scenario: string;
  total: number;
  /** Runs done before this process started (read back by --resume). */
  alreadyDone?: number;
  stream?: NodeJS.WriteStream;
  enabled?: boolean;
  heartbeatMs?: number;
  now?: () => number;
  env?: NodeJS.ProcessEnv;
}

/** A CI runner (CI=true, as GitHub Actions, GitLab and most others set it): a log, not a terminal, even on a pseudo-terminal. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}

/** The bar when stderr is a terminal (and not in CI), else the heartbeat; nothing when disabled. */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  const alreadyDone = options.alreadyDone ?? 0;
  if (options.enabled === false || options.total <= 0) return silent;
  if (stream.isTTY && !isCi(options.env)) return bar(stream, options.total, alreadyDone, now);
  return heartbeat(
    stream,
    options.scenario,
    options.total,
    alreadyDone,
    options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    now,
  );
}
