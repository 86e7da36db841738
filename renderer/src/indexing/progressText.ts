// What the indexing progress says: the heading (a first index is "Indexing for the first time", not a "rebuild"
// with the reason "no index yet"), what is counted (notes, in every phase: the core counts notes done), and a time
// left that does not jump about: the core's raw estimate (elapsed / done × remaining) swings wildly early on, so it
// is smoothed here, held back until enough is done to mean anything, and "almost done" only near the end.
import { formatDuration } from '../format.ts';

/** The core's rebuild reason when a vault has never been indexed (core/indexing/manifest.ts). */
export const FIRST_INDEX_REASON = 'no index yet';

export function indexingHeading(rebuilding: string | null): { title: string; reason: string | null } {
  if (rebuilding === FIRST_INDEX_REASON) return { title: 'Indexing for the first time', reason: null };
  if (rebuilding) return { title: 'Rebuilding the index', reason: rebuilding };
  return { title: 'Indexing', reason: null };
}

const PHASES: Record<string, string> = {
  scan: 'Scanning files',
  chunk: 'Reading notes',
  embed: 'Embedding notes',
  index: 'Updating the indices',
  persist: 'Saving the index',
};

/** The phase, and "120 / 265 notes" where the count means something (not the save's "0 / 1"). */
export function phaseText(phase: string, done: number, total: number): string {
  const label = PHASES[phase] ?? phase;
  if (phase === 'persist' || total <= 0) return label;
  return `${label} · ${done.toLocaleString()} / ${total.toLocaleString()} ${total === 1 ? 'note' : 'notes'}`;
}

export interface EtaState {
  /** The smoothed estimate, seconds left, when there is one. */
  seconds: number | null;
  /** When it was last updated (ms), to count it down between updates. */
  at: number;
  /** When this run was first seen (ms). */
  startedAt: number;
  total: number;
}

export const NO_ETA: EtaState = { seconds: null, at: 0, startedAt: 0, total: 0 };

/** Before this share is done, or this many seconds have passed, no estimate is shown: it would be noise. */
const MIN_FRACTION = 0.05;
const MIN_SECONDS = 2;
/** Weight of each new raw estimate against the running one. */
const ALPHA = 0.25;

/**
 * Folds one progress report into the estimate. `raw` is the core's estimate; the smoothed value follows it slowly
 * (an exponential moving average of the estimate counted down by the time since the last report), and a new run
 * (another total) starts afresh.
 */
export function nextEta(previous: EtaState, raw: number | undefined, done: number, total: number, now: number): EtaState {
  const fresh = previous.total !== total || previous.startedAt === 0;
  const startedAt = fresh ? now : previous.startedAt;
  if (raw === undefined || !Number.isFinite(raw) || total <= 0 || done / total < MIN_FRACTION || (now - startedAt) / 1000 < MIN_SECONDS) {
    return { seconds: fresh ? null : previous.seconds, at: now, startedAt, total };
  }
  if (fresh || previous.seconds === null) return { seconds: raw, at: now, startedAt, total };
  const carried = Math.max(0, previous.seconds - (now - previous.at) / 1000);
  return { seconds: carried + ALPHA * (raw - carried), at: now, startedAt, total };
}

/** The time left as words: nothing until there is an estimate, "almost done" only in the last stretch. */
export function etaText(eta: EtaState, done: number, total: number): string | null {
  if (eta.seconds === null || total <= 0) return null;
  const fraction = done / total;
  if (fraction >= 0.9 && eta.seconds < 5) return 'almost done';
  // Rounded so that it does not flicker: to 5 s under a minute, to 15 s above.
  const step = eta.seconds < 60 ? 5 : 15;
  const rounded = Math.max(step, Math.round(eta.seconds / step) * step);
  return `about ${formatDuration(rounded)} left`;
}
