/**
 * Whether this process runs as a GitHub Actions step. Its own module, so that a command checks it
 * without loading the annotation renderer (and the terminal tables it uses) on every run.
 */
export function isGithubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === "true";
}
