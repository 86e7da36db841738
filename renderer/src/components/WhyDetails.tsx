// Why a result ranks where it does: the explanation the core's fusion keeps for every hit.
import type { SearchResult } from '../../../core/contract/appApi.ts';

export function WhyDetails({ result }: { result: SearchResult }) {
  const { explain } = result;
  const rows: Array<[string, string]> = [
    ['Keyword rank', explain.keywordRank ? `#${explain.keywordRank}${explain.keywordScore !== null ? ` (BM25 ${explain.keywordScore.toFixed(1)})` : ''}` : '—'],
    ['Vector rank', explain.vectorRank ? `#${explain.vectorRank}${explain.vectorScore !== null ? ` (similarity ${explain.vectorScore.toFixed(3)})` : ''}` : '—'],
    // Each ranking's weight for this query: the model's base weight × how sure that ranker was.
    ['Weights', `keyword ${explain.weights.keyword.toFixed(2)}${explain.keywordCoverage !== null ? ` (its best hit holds ${Math.round(explain.keywordCoverage * 100)}% of the query)` : ''} · vector ${explain.weights.vector.toFixed(2)}`],
    ['Fusion (RRF)', explain.rrf.toFixed(4)],
    ['Graph lift', explain.graph ? `linked with ${explain.graph.from} (+${explain.graph.score.toFixed(4)})` : '—'],
    ['Recency', explain.recency > 1 ? `×${explain.recency}` : '—'],
    // Hybrid search's second stage: the chunk's rank by its best sentence among the first stage's best.
    ['Best sentence', explain.sentence ? `#${explain.sentence.rank} (score ${explain.sentence.score.toFixed(3)}, line ${explain.sentence.line})` : '—'],
    ['Exact title', explain.exactTitle ? 'yes' : 'no'],
    ['Score', result.score.toFixed(4)],
  ];
  return (
    <details className="why" onClick={(event) => event.stopPropagation()}>
      {/* Out of the Tab path: Tab from the search box goes on to the controls, not through every result's toggle. */}
      <summary tabIndex={-1}>Why this result</summary>
      <dl>
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
