import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOPIC_LABELS, canonicalTopic } from '../../services/core/topics.ts';
import { classifyTopicByKeywords } from '../../services/ingest/topics/keyword-classifier.ts';
import { createLlmTopicClassifier } from '../../services/ingest/topics/llm-classifier.ts';

describe('offline topic classifier', () => {
  it('labels clear cases', () => {
    expect(
      classifyTopicByKeywords({
        title: 'Neuer Radweg an der Hauptstraße',
        text: 'Der Radweg entlang der Straße wird verbreitert. Busse und Bahnen fahren während der Baustelle nach einem geänderten Fahrplan; die Haltestelle am Bahnhof wird verlegt.',
      }),
    ).toBe('Verkehr');
    expect(
      classifyTopicByKeywords({
        title: 'Verordnung über die Ausbildung',
        text: '§ 1 Geltungsbereich. Diese Verordnung gilt für ... § 2 Inkrafttreten. Das Gesetz und die Vorschrift nach Absatz 2; die Bekanntmachung im Bundesgesetzblatt.',
      }),
    ).toBe('Recht');
  });

  it('abstains when unsure', () => {
    expect(classifyTopicByKeywords({ title: 'Hallo', text: 'Ein kurzer Text ohne klares Thema.' })).toBeNull();
  });

  it('only ever answers labels of the taxonomy', () => {
    expect(TOPIC_LABELS).toContain('Politik');
    expect(canonicalTopic('politik')).toBe('Politik');
    expect(canonicalTopic('Astrologie')).toBeNull();
  });
});

describe('LLM topic classifier against a local stand-in of an OpenAI-compatible server (no model runs here)', () => {
  let server: Server;
  let baseUrl: string;
  const answers: (string | number)[] = [];
  const requests: any[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        requests.push({ url: request.url, auth: request.headers.authorization, body: JSON.parse(body) });
        const answer = answers.shift();
        if (typeof answer === 'number') {
          response.writeHead(answer).end('{}');
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: answer } }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('uses the label the model answers, abstains on "keins", falls back otherwise', async () => {
    const classify = createLlmTopicClassifier({ baseUrl, model: 'test-model', apiKey: 'secret', fallback: () => 'Kultur' });
    const doc = { title: 'Titel', text: 'Text' };
    answers.push('Verkehr', 'keins', 'Astrologie', 500, ' "Umwelt". ');
    expect(await classify(doc)).toBe('Verkehr');
    expect(await classify(doc)).toBeNull();
    expect(await classify(doc)).toBe('Kultur');
    expect(await classify(doc)).toBe('Kultur');
    expect(await classify(doc)).toBe('Umwelt');
    expect(requests[0]).toMatchObject({ url: '/v1/chat/completions', auth: 'Bearer secret' });
    expect(requests[0].body.model).toBe('test-model');
    expect(requests[0].body.messages[0].content).toContain('Verkehr');
  });

  it('falls back when the endpoint is unreachable', async () => {
    const classify = createLlmTopicClassifier({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', fallback: () => 'Sport', timeoutMs: 2000 });
    expect(await classify({ title: 'x', text: 'y' })).toBe('Sport');
  });
});
