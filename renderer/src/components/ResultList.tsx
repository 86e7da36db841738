// Ranked passages: title, header-path breadcrumb, highlighted snippet, date, lines, the notes holding the same
// passage word for word, and an expandable "why".
import { useEffect, useRef } from 'react';
import type { SearchResult } from '../../../core/contract/appApi.ts';
import { shownHeaderPath } from '../../../core/contract/inlineText.ts';
import { formatDate, lineRange } from '../format.ts';
import { HighlightedSnippet } from './HighlightedSnippet.tsx';
import { SameTextCopies } from './SameTextCopies.tsx';
import { WhyDetails } from './WhyDetails.tsx';

interface ResultListProps {
  results: SearchResult[];
  query: string;
  selected: number;
  openChunkId: string | null;
  /** The results are for an earlier query; newer ones are on their way. */
  stale: boolean;
  onSelect(index: number): void;
  onOpen(result: SearchResult): void;
}

export function ResultList({ results, query, selected, openChunkId, stale, onSelect, onOpen }: ResultListProps) {
  const listRef = useRef<HTMLOListElement>(null);
  useEffect(() => {
    listRef.current?.querySelector<HTMLElement>('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [selected]);
  return (
    <ol className={`results${stale ? ' stale' : ''}`} role="listbox" aria-label="Results" aria-busy={stale} ref={listRef} data-testid="results" data-query={query}>
      {results.map((result, index) => {
        const shown = shownHeaderPath(result.headerPath);
        const crumbs = shown.length ? shown : [result.title];
        return (
          <li
            key={result.chunkId}
            role="option"
            aria-selected={index === selected}
            className={`result${index === selected ? ' selected' : ''}${result.chunkId === openChunkId ? ' open' : ''}`}
            data-testid="result-item"
            onClick={() => {
              onSelect(index);
              onOpen(result);
            }}
          >
            <div className="result-title">{result.title}</div>
            <div className="breadcrumb" title={result.path}>
              {crumbs.map((crumb, i) => (
                <span key={i}>
                  {i > 0 && <span className="crumb-sep"> › </span>}
                  {crumb}
                </span>
              ))}
            </div>
            <HighlightedSnippet segments={result.snippet} />
            <div className="result-meta">
              <span className="path">{result.path}</span>
              <span>{lineRange(result.startLine, result.endLine)}</span>
              <span>modified {formatDate(result.modified)}</span>
            </div>
            {result.sameText?.length ? (
              <SameTextCopies
                copies={result.sameText}
                testId="same-text"
                onOpen={(copy, event) => {
                  // Opens the copy, not the result the click would otherwise open.
                  event.stopPropagation();
                  onSelect(index);
                  onOpen({ ...result, ...copy, parts: undefined });
                }}
              />
            ) : null}
            <WhyDetails result={result} />
          </li>
        );
      })}
    </ol>
  );
}
