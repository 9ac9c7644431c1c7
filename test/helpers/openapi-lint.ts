import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';

// CommonJS packages: their named exports are read off the default export.
const { Document, Spectral } = spectralCore;
const { Json: JsonParser } = spectralParsers;
const { oas } = spectralRulesets;

// The ecosystem's own linters, run as libraries on a document fetched from a started server:
// Redocly (the engine of `redocly lint --extends recommended-strict`) and Spectral's `oas` ruleset
// (what `spectral lint` uses with `extends: spectral:oas`). Every problem is returned as one line.

export async function redoclyProblems(document: unknown): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended-strict'] });
  const problems = await lintFromString({ source: JSON.stringify(document, null, 2), absoluteRef: 'openapi.json', config });
  return problems.map((p) => `redocly ${p.severity} ${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
}

const SEVERITY = ['error', 'warn', 'info', 'hint'];

export async function spectralProblems(document: unknown): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
  const results = await spectral.run(new Document(JSON.stringify(document, null, 2), JsonParser, 'openapi.json'));
  return results.map((r) => `spectral ${SEVERITY[r.severity] ?? r.severity} ${String(r.code)}: ${r.message} at /${r.path.join('/')}`);
}
