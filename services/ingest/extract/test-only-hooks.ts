// Misbehaviour on purpose, for tests only: proves that the extraction pool survives a stuck, bloated
// or crashing extraction. Never chosen by input: a test names the hook in the pool call, or for a run
// of the `fundus` command as a process, in FUNDUS_TEST_ONLY_EXTRACT_HOOKS (JSON: file name -> hook).

export const TEST_ONLY_HOOKS = [
  'hang',
  // 'hang' where the document is prepared for the index: with the pool's roles, in the preparing
  // process, after the file was extracted in another (one process: the same as 'hang').
  'hang-in-preparation',
  // Waits without using CPU, like a read that never returns: only the wall-clock guard ends it.
  'block',
  // Many 8 MB arrays: V8 reaches the heap limit between allocations.
  'exhaust-memory',
  // One array grown by push, and one growing Map: each ends in one large allocation that fails; in a
  // worker thread with resourceLimits both aborted the whole process (Node 24.21).
  'grow-one-array',
  'grow-map',
  // Buffers outside the V8 heap, which no heap limit covers: only the pool's RSS watch stops them.
  'exhaust-external-memory',
  'exit',
  'abort',
  'segfault',
] as const;
export type TestOnlyHook = (typeof TEST_ONLY_HOOKS)[number];

export const TEST_ONLY_HOOKS_ENV = 'FUNDUS_TEST_ONLY_EXTRACT_HOOKS';

/** The hooks a test asked for by file name; unknown names and malformed values are ignored. */
export function testOnlyHooksFromEnv(value: string | undefined): Map<string, TestOnlyHook> {
  const hooks = new Map<string, TestOnlyHook>();
  if (!value) return hooks;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed && typeof parsed === 'object') {
      for (const [name, hook] of Object.entries(parsed)) {
        if ((TEST_ONLY_HOOKS as readonly unknown[]).includes(hook)) hooks.set(name, hook as TestOnlyHook);
      }
    }
  } catch {
    /* not JSON: no hooks */
  }
  return hooks;
}

/** Upper bound of the external-memory hook, so that a broken RSS watch fails its test instead of filling the machine. */
const EXTERNAL_HOOK_BOUND_MB = 1536;

function holdForever(): never {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(cell, 0, 0, 60_000);
}

/** Runs in the extraction process; most hooks never return. */
export function runTestOnlyHook(hook: TestOnlyHook): void {
  if (hook === 'hang' || hook === 'hang-in-preparation') {
    // A synchronous loop like a runaway parser: only a kill can stop it.
    for (;;) {
      /* spin */
    }
  }
  if (hook === 'block') holdForever();
  if (hook === 'exhaust-memory') {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array(1_000_000).fill(hoard.length));
  }
  if (hook === 'grow-one-array') {
    const grown: number[] = [];
    for (let i = 0; ; i++) grown.push(i + 0.5);
  }
  if (hook === 'grow-map') {
    const grown = new Map<string, number>();
    for (let i = 0; ; i++) grown.set(`k${i}`, i);
  }
  if (hook === 'exhaust-external-memory') {
    const hoard: Buffer[] = [];
    for (let mb = 0; mb < EXTERNAL_HOOK_BOUND_MB; mb += 64) hoard.push(Buffer.alloc(64 * 1024 * 1024, 1));
    holdForever();
  }
  if (hook === 'exit') process.exit(3);
  if (hook === 'abort') process.abort();
  if (hook === 'segfault') process.kill(process.pid, 'SIGSEGV');
}
