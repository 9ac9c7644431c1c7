#!/usr/bin/env node
// The `fundus` command: runs the compiled CLI (npm run build writes dist/). Written so that an old
// Node can read this file and say what it needs, instead of dying on `node:sqlite`.
const NEEDED = [24, 0];
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < NEEDED[0] || (major === NEEDED[0] && minor < NEEDED[1])) {
  console.error(
    `fundus needs Node.js ${NEEDED[0]} or newer (it uses node:sqlite); this is Node.js ${process.versions.node}.\n` +
      'The project brings its own: after `npm ci`, run `npx fundus ...` or `node_modules/.bin/node bin/fundus.js ...`.',
  );
  process.exit(1);
}

// V8's compiled code of our modules kept on disk (Node's compile cache, in the temporary folder):
// start-up of every command and of each extraction process compiles less. The processes `fundus`
// starts inherit it through the environment. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import('node:module');
const cache = enableCompileCache?.();
if (cache?.directory && !process.env.NODE_COMPILE_CACHE) process.env.NODE_COMPILE_CACHE = cache.directory;

const { main } = await import('../dist/services/cli/main.js');
const { printableMessage } = await import('../dist/services/cli/printable.js');
main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (error) => { console.error(`fundus: ${printableMessage(error instanceof Error ? error.message : String(error))}`); process.exitCode = 1; },
);
