// Its own module, not config.ts: the usage module names it, and every command loads that one before
// it starts, while the configuration's schema (zod, about 50 ms of CPU) loads only where it is read.

/** Bad settings: each problem names its setting. */
export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
