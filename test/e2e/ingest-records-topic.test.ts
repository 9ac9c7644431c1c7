import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFundus, startFundus, type ServingProcess } from '../helpers/processes.ts';

// Pre-extracted records that name their topic keep it (the extraction processes skip the offline
// classifier for them); records without one, or with null, are classified. Through the CLI and the API.

const LEGAL =
  'Diese Verordnung regelt den Zyklopenbrunnen. Das Gesetz und die Vorschrift nach Absatz 2 gelten; die Bekanntmachung im Bundesgesetzblatt, ' +
  'das Inkrafttreten, die Satzung und das Urteil des Gerichts. Die Haftung und der Anspruch nach dem Gesetz.';

describe('fundus ingest --records and topics', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fundus-records-topic-'));
  const data = join(dir, 'data');
  let server: ServingProcess;

  beforeAll(async () => {
    const records = [
      { url: 'https://amt.example/named', title: 'Verordnung über den Zyklopenbrunnen', text: `${LEGAL} Erste Fassung.`, topic: 'Kultur' },
      { url: 'https://amt.example/unnamed', title: 'Gesetz zum Zyklopenbrunnen', text: `${LEGAL} Zweite Fassung mit anderem Wortlaut.` },
      { url: 'https://amt.example/null', title: 'Satzung für den Zyklopenbrunnen', text: `${LEGAL} Dritte Fassung, wieder anders.`, topic: null },
    ];
    const file = join(dir, 'records.jsonl');
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const run = await runFundus(['ingest', '--data', data, '--quiet', '--records', file]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/read 3, added 3/);
    server = await startFundus(['--data', data, '--role', 'gateway', '--port', '0'], { FUNDUS_ANONYMOUS_LIMIT: '1000/s' });
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps a named topic and classifies the others', async () => {
    const response = await fetch(`${server.urls.gateway}/v1/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ q: 'Zyklopenbrunnen' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { total: number; results: { url: string; content: { topic: string | null } }[] };
    expect(body.total).toBe(3);
    const topics = Object.fromEntries(body.results.map((result) => [result.url, result.content.topic]));
    expect(topics).toEqual({ 'https://amt.example/named': 'Kultur', 'https://amt.example/unnamed': 'Recht', 'https://amt.example/null': 'Recht' });
  });
});
