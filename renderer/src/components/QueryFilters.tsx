// The filters typed into the search box (path:, tag:, after:, before:, -path:, -tag:) as chips, each removable
// from the query with its ×, and the operators Cairn could not use with the reason, so a filter that silently
// matched nothing is never a mystery.
import type { QueryOperator } from '../../../core/contract/appApi.ts';

interface QueryFiltersProps {
  operators: QueryOperator[];
  problems: string[];
  /** `tag:` filters no note has, with the nearest tags to offer instead (their problem is shown with them). */
  unknownTags?: Array<{ tag: string; suggestions: string[] }>;
  onRemove(operator: QueryOperator): void;
  /** Puts `tag:right` in the query in place of `tag:wrong`. */
  onReplaceTag?(wrong: string, right: string): void;
}

export function QueryFilters({ operators, problems, unknownTags = [], onRemove, onReplaceTag }: QueryFiltersProps) {
  if (operators.length === 0 && problems.length === 0) return null;
  const unknownProblem = (problem: string) => unknownTags.some((u) => problem.startsWith(`no note has the tag #${u.tag}`));
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
      {unknownTags.map((unknown) => (
        <p key={`unknown:${unknown.tag}`} className="query-problem small" role="status" data-testid="unknown-tag">
          No note has the tag #{unknown.tag}
          {unknown.suggestions.length > 0 ? (
            <>
              {' — did you mean '}
              {unknown.suggestions.map((tag, i) => (
                <span key={tag}>
                  {i > 0 && ', '}
                  <button type="button" className="link-button" data-testid="tag-instead" data-tag={tag} onClick={() => onReplaceTag?.(unknown.tag, tag)}>
                    #{tag}
                  </button>
                </span>
              ))}
              ?
            </>
          ) : (
            '.'
          )}
        </p>
      ))}
      {problems.filter((problem) => !unknownProblem(problem)).map((problem) => (
        <p key={problem} className="query-problem small" role="status" data-testid="query-problem">
          {problem}
        </p>
      ))}
    </div>
  );
}
