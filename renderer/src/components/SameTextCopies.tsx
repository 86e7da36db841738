// The notes that hold a result's passage word for word, each a button that opens that copy. A few are named; the
// rest wait behind "N more", so a template's text kept in hundreds of notes does not bury the results.
import { useState, type MouseEvent } from 'react';
import { namedCopies, type PassagePlace } from '../../../core/contract/search.ts';
import { lineRange } from '../format.ts';

interface SameTextCopiesProps {
  copies: readonly PassagePlace[];
  testId: string;
  onOpen(copy: PassagePlace, event: MouseEvent): void;
}

export function SameTextCopies({ copies, testId, onOpen }: SameTextCopiesProps) {
  const [all, setAll] = useState(false);
  const { named, more } = namedCopies(copies);
  const shown = all ? copies : named;
  return (
    <div className="same-text" data-testid={testId}>
      <span>The same passage is also in</span>
      {shown.map((copy) => (
        <button key={copy.chunkId} type="button" className="link-button path" title={`${copy.path}, ${lineRange(copy.startLine, copy.endLine)}`} onClick={(event) => onOpen(copy, event)}>
          {copy.path}
        </button>
      ))}
      {!all && more > 0 && (
        <button
          type="button"
          className="link-button"
          data-testid="same-text-more"
          onClick={(event) => {
            // Lists the rest; it opens nothing.
            event.stopPropagation();
            setAll(true);
          }}
        >
          {more} more
        </button>
      )}
    </div>
  );
}
