import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { DocumentIndex } from '../../core/index-port.ts';
import { activityVerdict, collectActors, isOutbox, outboxActivities } from './activitypub.ts';
import { addSummaries, applyVerdicts, emptySummary, type ApplySummary } from './apply.ts';
import { isMastodonStatus, statusVerdict } from './mastodon.ts';
import type { Verdict } from './post.ts';

// `fundus fediverse ingest FILE...`: Mastodon REST status arrays (as /api/v1/timelines/public
// returns them) and ActivityPub outbox collections (outbox.json of an account archive, with the
// archive's actor.json read from the same folder when it is there). Archives must be unpacked first.

export class FediverseFileError extends Error {
  constructor(file: string, reason: string) {
    super(`${file}: ${reason}`);
    this.name = 'FediverseFileError';
  }
}

async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new FediverseFileError(file, `cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FediverseFileError(file, `not JSON (${(error as Error).message})`);
  }
}

/** The verdicts of one file, in file order. */
export async function verdictsOfFile(file: string): Promise<Verdict[]> {
  const json = await readJson(file);
  if (Array.isArray(json)) return json.map((status) => statusVerdict(status));
  if (isMastodonStatus(json)) return [statusVerdict(json)];
  if (isOutbox(json)) {
    const actorFile = join(dirname(file), 'actor.json');
    const actorDocument = existsSync(actorFile) ? await readJson(actorFile) : null;
    const actors = collectActors(json, actorDocument);
    return outboxActivities(json).map((activity) => activityVerdict(activity, actors));
  }
  throw new FediverseFileError(file, 'neither a Mastodon status array nor an ActivityPub outbox collection');
}

export interface FileOutcome {
  file: string;
  summary?: ApplySummary;
  error?: string;
}

/** Ingests files one after another; a bad file is reported and the others still go in. */
export async function ingestFediverseFiles(index: DocumentIndex, files: string[], now: () => Date = () => new Date()): Promise<{ total: ApplySummary; files: FileOutcome[] }> {
  const total = emptySummary();
  const outcomes: FileOutcome[] = [];
  for (const file of files) {
    try {
      const summary = await applyVerdicts(index, await verdictsOfFile(file), now());
      addSummaries(total, summary);
      outcomes.push({ file, summary });
    } catch (error) {
      if (!(error instanceof FediverseFileError)) throw error;
      outcomes.push({ file, error: error.message });
    }
  }
  return { total, files: outcomes };
}
