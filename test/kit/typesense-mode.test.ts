import { afterAll, describe, expect, it } from 'vitest';
import { detectEngine } from './lib/engine.ts';
import { ComposeKit } from './lib/kit.ts';

// Typesense mode cannot run here (no Typesense image can be built from Debian), but podman-compose
// must read it: `--dry-run up` prints the podman commands it would run, which show how the keys are
// handed out. (podman-compose creates the project's networks and volumes even then; removed after.)

const engine = detectEngine();
if (!engine.ok) console.warn(`\n*** kit typesense mode SKIPPED: ${engine.reason} ***\n`);

describe.skipIf(!engine.ok)('typesense mode as podman-compose reads it (docker-compose.yml + docker-compose.typesense.yml)', () => {
  const kit = engine.ok
    ? new ComposeKit({
        project: `fundus-ts-${process.pid}`,
        httpPort: 1,
        httpsPort: 2,
        files: ['docker-compose.yml', 'docker-compose.typesense.yml'],
        env: { TYPESENSE_API_KEY: 'ts-admin-key-of-the-test', TYPESENSE_SEARCH_KEY: 'ts-search-key-of-the-test' },
      })
    : null;

  afterAll(async () => {
    await kit?.destroy();
  });

  it('hands the admin key to the nodes, the key job and ingest only; every reader gets the search key', async () => {
    const out = await kit!.compose(['--dry-run', 'up', '-d']);
    const runs = new Map<string, string>();
    for (const line of out.split('\n')) {
      const name = /^podman run --name=\S+?_([a-z0-9-]+)_1 /.exec(line)?.[1];
      if (name) runs.set(name, line);
    }
    expect([...runs.keys()].sort()).toEqual(
      ['admin', 'caddy', 'gateway-1', 'gateway-2', 'gateway-3', 'ingest', 'redis', 'typesense-1', 'typesense-2', 'typesense-3', 'typesense-search-key', 'web-1', 'web-2'].sort(),
    );
    const key = (service: string) => /-e TYPESENSE_API_KEY=(\S+)/.exec(runs.get(service)!)?.[1];
    for (const service of ['typesense-1', 'typesense-2', 'typesense-3', 'typesense-search-key', 'ingest']) expect(key(service), service).toBe('ts-admin-key-of-the-test');
    for (const service of ['gateway-1', 'gateway-2', 'gateway-3', 'web-1', 'web-2', 'admin']) {
      expect(key(service), service).toBe('ts-search-key-of-the-test');
      expect(runs.get(service), service).toContain('-e FUNDUS_INDEX=typesense');
    }
    for (const service of ['caddy', 'redis']) expect(key(service), service).toBeUndefined();
    expect(runs.get('typesense-search-key')).toMatch(/ index search-key --to typesense$/);
    expect(runs.get('typesense-search-key')).toContain('-e TYPESENSE_SEARCH_KEY=ts-search-key-of-the-test');
    expect(runs.get('ingest')).toContain('index copy --from sqlite --to typesense');
    // No ${...} left unreplaced anywhere (podman-compose 1.0.x keeps an empty default literally).
    expect(out).not.toMatch(/\$\{/);
  });
});
