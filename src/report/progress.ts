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

/** One heartbeat line: what a CI log shows every few seconds. */
export function heartbeatLine(
  scenario: string,
  done: number,
  total: number,
  violations: number,
  elapsedMs: number,
): string {
  const rate = done / Math.max(elapsedMs / 1000, 0.001);
  const eta = rate > 0 ? ((total - done) / rate) * 1000 : Number.NaN;
  const percent = Math.floor((done / Math.max(total, 1)) * 100);
  return `eosfuzz ${scenario}: ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} seeds (${percent}%), ${rate.toFixed(1)} seeds/s, ${plural(violations, "violation")}, ETA ${formatDuration(eta)}`;
}

/** A bar on an interactive stderr (seeds, seeds/s, violations, ETA), cleared when the run ends. */
function bar(stream: NodeJS.WriteStream, total: number, now: () => number): Progress {
  const started = now();
  const b = new cliProgress.SingleBar(
    {
      stream,
      format: "  {bar} {value}/{total} seeds | {speed} seeds/s | {violations} | ETA {eta_formatted}",
      barsize: 30,
      hideCursor: true,
      clearOnComplete: true,
      etaBuffer: 50,
      fps: 8,
    },
    cliProgress.Presets.shades_classic,
  );
  b.start(total, 0, { speed: "0.0", violations: plural(0, "violation") });
  return {
    update(done, violations) {
      const speed = (done / Math.max((now() - started) / 1000, 0.001)).toFixed(1);
      b.update(done, { speed, violations: plural(violations, "violation") });
    },
    stop: () => b.stop(),
  };
}

/** A line every `intervalMs` on a non-interactive stderr, so a long CI job shows it is alive. */
function heartbeat(
  stream: NodeJS.WritableStream,
  scenario: string,
  total: number,
  intervalMs: number,
  now: () => number,
): Progress {
  const started = now();
  let last = started;
  return {
    update(done, violations) {
      const t = now();
      if (t - last < intervalMs || done >= total) return;
      last = t;
      stream.write(`${heartbeatLine(scenario, done, total, violations, t - started)}\n`);
    },
    stop() {},
  };
}

const silent: Progress = { update() {}, stop() {} };

export interface ProgressOptions {
  scenario: string;
  total: number;
  stream?: NodeJS.WriteStream;
  enabled?: boolean;
  heartbeatMs?: number;
  now?: () => number;
}

/** The bar when stderr is a terminal, else the heartbeat; nothing when disabled. */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? (() => performance.now());
  if (options.enabled === false || options.total <= 0) return silent;
  if (stream.isTTY) return bar(stream, options.total, now);
  return heartbeat(stream, options.scenario, options.total, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS, now);
}
