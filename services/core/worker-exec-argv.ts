// The Node options a worker thread may be given. V8's options (--max-old-space-size,
// --perf-basic-prof, --min-semi-space-size, ...) are process-wide — already in force on every
// thread — and a worker refuses them in its execArgv ("Initiated Worker with invalid execArgv
// flags"), so `node --max-old-space-size=4096 bin/fundus.js serve` would not start. Only Node's own
// options are handed on; --input-type concerns the main entry only.

/** V8's options that Node also accepts in NODE_OPTIONS (Node's documentation of process.allowedNodeEnvironmentFlags). */
const V8_OPTIONS = new Set([
  '--abort-on-uncaught-exception',
  '--disallow-code-generation-from-strings',
  '--enable-etw-stack-walking',
  '--expose-gc',
  '--huge-max-old-generation-size',
  '--interpreted-frames-native-stack',
  '--jitless',
  '--max-old-space-size',
  '--max-semi-space-size',
  '--perf-basic-prof',
  '--perf-basic-prof-only-functions',
  '--perf-prof',
  '--perf-prof-unwinding-info',
  '--stack-trace-limit',
]);

/** This process's execArgv as a worker thread accepts it (a value given apart, `--opt VALUE`, goes with its option). */
export function workerExecArgv(argv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  let previousKept = false;
  for (const arg of argv) {
    if (!arg.startsWith('-')) {
      if (previousKept) kept.push(arg);
      continue;
    }
    const name = arg.split('=')[0];
    previousKept = name !== '--input-type' && process.allowedNodeEnvironmentFlags.has(name) && !V8_OPTIONS.has(name);
    if (previousKept) kept.push(arg);
  }
  return kept;
}
