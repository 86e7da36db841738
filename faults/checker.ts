/** What the fault suite reads from an index (see probe.ts), and how a faulted index is compared with a fresh one. */
export interface Probe {
  notes: number;
  chunks: number;
  /** Set when opening found the index unusable: the next index run would rebuild it. */
  pendingRebuild: string | null;
  failed: string[];
  snapshot: { chunkIds: string[]; keywordIds: string[]; vectorIds: string[]; links: Record<string, string[]>; failures: string[] };
  /** "mode: query" → top results as [chunk id, score]. */
  searches: Record<string, Array<[string, number]>>;
}

const SHOWN = 3;
/** Scores are recomputed from the same vectors and postings, so they agree to rounding. */
const SCORE_TOLERANCE = 1e-6;

/** Every way `actual` differs from `expected` (the fresh full index of the same vault), one line each; empty when equal. */
export function compareProbes(actual: Probe, expected: Probe): string[] {
  const out: string[] = [];
  if (actual.pendingRebuild) out.push(`the index still needs a rebuild: ${actual.pendingRebuild}`);
  if (actual.notes !== expected.notes) out.push(`notes: ${actual.notes}, fresh index ${expected.notes}`);
  if (actual.chunks !== expected.chunks) out.push(`chunks: ${actual.chunks}, fresh index ${expected.chunks}`);
  out.push(...setDiff('failed notes', actual.failed, expected.failed));
  out.push(...setDiff('chunk ids', actual.snapshot.chunkIds, expected.snapshot.chunkIds));
  out.push(...setDiff('keyword index ids', actual.snapshot.keywordIds, expected.snapshot.keywordIds));
  out.push(...setDiff('vector index ids', actual.snapshot.vectorIds, expected.snapshot.vectorIds));
  out.push(...setDiff('store failures', actual.snapshot.failures, expected.snapshot.failures));
  const linkNotes = new Set([...Object.keys(actual.snapshot.links), ...Object.keys(expected.snapshot.links)]);
  const linkDiffs = [...linkNotes].sort().filter((note) => (actual.snapshot.links[note] ?? []).join('\n') !== (expected.snapshot.links[note] ?? []).join('\n'));
  if (linkDiffs.length) out.push(`links differ for ${linkDiffs.length} notes: ${linkDiffs.slice(0, SHOWN).join(', ')}`);
  for (const [key, wanted] of Object.entries(expected.searches)) {
    const got = actual.searches[key] ?? [];
    const firstDiff = wanted.findIndex(([id, score], i) => got[i]?.[0] !== id || Math.abs(got[i]![1] - score) > SCORE_TOLERANCE * Math.max(1, Math.abs(score)));
    if (firstDiff !== -1 || got.length !== wanted.length) {
      const at = firstDiff === -1 ? wanted.length : firstDiff;
      out.push(`search "${key}" differs at rank ${at + 1}: ${describe(got[at])} instead of ${describe(wanted[at])}`);
    }
  }
  return out;
}

function describe(result: [string, number] | undefined): string {
  return result ? `${result[0]} (${result[1].toFixed(6)})` : 'nothing';
}

function setDiff(what: string, actual: string[], expected: string[]): string[] {
  const have = new Set(actual);
  const want = new Set(expected);
  const missing = expected.filter((x) => !have.has(x));
  const extra = actual.filter((x) => !want.has(x));
  const out: string[] = [];
  if (missing.length) out.push(`${what}: ${missing.length} missing (${missing.slice(0, SHOWN).join(', ')}${missing.length > SHOWN ? ', …' : ''})`);
  if (extra.length) out.push(`${what}: ${extra.length} extra (${extra.slice(0, SHOWN).join(', ')}${extra.length > SHOWN ? ', …' : ''})`);
  return out;
}
