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

const { main } = await import('../dist/services/cli/main.js');
const { printableMessage } = await import('../dist/services/cli/printable.js');
main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (error) => { console.error(`fundus: ${printableMessage(error instanceof Error ? error.message : String(error))}`); process.exitCode = 1; },
);
