// The filters typed into the search box (path:, tag:, after:, before:, -path:, -tag:) as chips, each removable
// from the query with its ×, and the operators Cairn could not use with the reason, so a filter that silently
// matched nothing is never a mystery.
import type { QueryOperator } from '../../../core/appApi.ts';

interface QueryFiltersProps {
  operators: QueryOperator[];
  problems: string[];
  onRemove(operator: QueryOperator): void;
}

export function QueryFilters({ operators, problems, onRemove }: QueryFiltersProps) {
  if (operators.length === 0 && problems.length === 0) return null;
  return (
    <div className="query-filters" data-testid="query-filters">
      {operators.map((operator) => (
        <span key={operator.text} className="filter-chip" data-testid="filter-chip" title={operator.text}>
          <span className="filter-label">{operator.label}</span>
          <button type="button" className="filter-remove" aria-label={`Remove the filter ${operator.label}`} onClick={() => onRemove(operator)}>
            ×
          </button>
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
