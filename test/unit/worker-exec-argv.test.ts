import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../services/core/worker-exec-argv.ts';

// A serving thread or search worker is started with the process's execArgv; V8's options among
// them (process-wide) make Node refuse the worker, and `node --max-old-space-size=… fundus serve`
// did not start.

const GIVEN = ['--max-old-space-size=512', '--stack-trace-limit', '20', '--min-semi-space-size=16', '--no-warnings', '--cpu-prof-dir', '/tmp/x', '--input-type=module'];

function starts(execArgv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker("require('node:worker_threads').parentPort.postMessage('up')", { eval: true, execArgv });
    } catch (error) {
      resolve((error as NodeJS.ErrnoException).code ?? String(error));
      return;
    }
    worker.once('message', (message: string) => void worker.terminate().then(() => resolve(message)));
    worker.once('error', reject);
  });
}

describe('workerExecArgv', () => {
  it("keeps Node's own options with their values and drops V8's and --input-type", () => {
    expect(workerExecArgv(GIVEN)).toEqual(['--no-warnings', '--cpu-prof-dir', '/tmp/x']);
  });

  it('gives options a worker accepts, where the unfiltered ones are refused', async () => {
    expect(await starts(GIVEN.slice(0, 4))).toBe('ERR_WORKER_INVALID_EXEC_ARGV');
    expect(await starts(workerExecArgv(GIVEN.slice(0, 5)))).toBe('up');
  });
});
