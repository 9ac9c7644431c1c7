import { describe, expect, it } from 'vitest';
import { loadTypesenseApiChecker, TYPESENSE_OPENAPI_FILE } from '../helpers/typesense-openapi.ts';

// The API-description check of the Typesense suite can fail: it flags what the description does not allow.

const api = loadTypesenseApiChecker();
if (!api) console.warn(`\n*** typesense API description check: SKIPPED, ${TYPESENSE_OPENAPI_FILE} is absent ***\n`);

describe.skipIf(!api)('typesense API description check', () => {
  it('flags unknown search parameters, wrong types and enums, undocumented statuses and answers that do not fit', () => {
    const check = api!.check;
    const body = JSON.stringify({ searches: [{ collection: 'c', q: '*', prefix: false, num_typos: 0, bogus_option: 1 }] });
    const problems = check('POST', 'http://127.0.0.1:1/multi_search', {}, body, 200, { results: [{ found: 'many' }] });
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/searches\[0\]\.bogus_option is not in MultiSearchCollectionParameters/),
        expect.stringMatching(/\/searches\/0\/prefix must be string/),
        expect.stringMatching(/\/searches\/0\/num_typos must be string/),
        expect.stringMatching(/answer 200: \/results\/0\/found must be integer/),
      ]),
    );
    expect(check('POST', 'http://127.0.0.1:1/collections/c/documents/import', { action: 'replace', throwOnFail: true }, '{"id":"1"}', 200, '{"success":true}')).toEqual(
      expect.arrayContaining([expect.stringMatching(/query action/), expect.stringMatching(/"throwOnFail" is not in the API description/)]),
    );
    expect(check('PUT', 'http://127.0.0.1:1/aliases/a', {}, '{"collection_name":"c"}', 418, {})).toEqual([expect.stringMatching(/status 418 is not documented/)]);
    expect(check('GET', 'http://127.0.0.1:1/nothing/here', {}, '', 200, {})).toEqual([expect.stringMatching(/no such operation/)]);
  });

  it('passes what the adapter sends', () => {
    const body = JSON.stringify({ searches: [{ collection: 'c', q: 'haus', query_by: 'title_exact,all_exact', prefix: 'false', num_typos: '0', drop_tokens_threshold: 0, search_cutoff_ms: 2500, offset: 0, limit: 11 }] });
    expect(api!.check('POST', 'http://127.0.0.1:1/multi_search', {}, body, 200, { results: [{ found: 1, hits: [{ document: { id: 'a', n: 1 } }], out_of: 1, page: 1, search_time_ms: 0, request_params: { collection_name: 'c', per_page: 11, q: 'haus' } }] })).toEqual([]);
  });
});
