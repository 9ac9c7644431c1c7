import type { IndexQuery, IndexSearchResult } from '../../core/index-port.ts';
import { stageClock } from '../../core/stage-timings.ts';
import { finishHits } from './hit-fields.ts';
import { SqliteIndex } from './sqlite-index.ts';

/**
 * A serving thread's own read-only index (services/cli/gateway-threads.ts): searches are answered on
 * the thread that parsed the request, with the same steps as a read-pool worker (ranking, the
 * page's rows, snippets: read-worker.ts) and the same stage names, so that the benchmark's stage
 * table reads the same; there is no hand-over to time.
 */
export class InlineSqliteIndex extends SqliteIndex {
  override async search(query: IndexQuery): Promise<IndexSearchResult> {
    const clock = stageClock(); // null unless FUNDUS_STAGE_TIMINGS (benchmark only)
    const result = this.searchSync(query);
    clock?.lap('worker.search');
    finishHits(result, query);
    clock?.lap('worker.snippets');
    return result;
  }
}
