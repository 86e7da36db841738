// The filters a search ran with (typed as path:, tag:, after:, before:, -path:, -tag: or given beside the query), and the
// operators it could not use with the reason, so a filter that silently matched nothing is never a mystery.
import type { SearchFilters } from '../../../core/appApi.ts';

interface QueryFiltersProps {
  filters: SearchFilters;
  problems: string[];
}

const day = (time: number) => new Date(time).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

export function QueryFilters({ filters, problems }: QueryFiltersProps) {
  const chips: string[] = [];
  if (filters.pathPrefix) chips.push(`in ${filters.pathPrefix}`);
  for (const prefix of filters.excludePaths ?? []) chips.push(`not in ${prefix}`);
  for (const tag of filters.tags ?? []) chips.push(`#${tag}`);
  for (const tag of filters.excludeTags ?? []) chips.push(`not #${tag}`);
  if (filters.modifiedAfter !== undefined) chips.push(`modified on or after ${day(filters.modifiedAfter)}`);
  if (filters.modifiedBefore !== undefined) chips.push(`modified before ${day(filters.modifiedBefore)}`);
  if (chips.length === 0 && problems.length === 0) return null;
  return (
    <div className="query-filters" data-testid="query-filters">
      {chips.map((chip) => (
        <span key={chip} className="filter-chip" data-testid="filter-chip">
          {chip}
        </span>
      ))}
      {problems.map((problem) => (
        <p key={problem} className="query-problem small" role="status" data-testid="query-problem">
          {problem}
        </p>
      ))}
    </div>
  );
}
