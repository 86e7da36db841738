// Tags to complete the `tag:` being typed, from the index's tag list, each with how many notes carry it.
import type { TagCount } from '../../../core/appApi.ts';

interface TagSuggestionsProps {
  tags: TagCount[];
  /** What is typed of the tag so far. */
  prefix: string;
  onPick(tag: string): void;
}

export function TagSuggestions({ tags, prefix, onPick }: TagSuggestionsProps) {
  return (
    <div className="tag-suggestions" data-testid="tag-suggestions" aria-label="Tags">
      {tags.length === 0 ? (
        <span className="muted small" data-testid="tag-suggestions-none">
          {prefix ? `No tag starts with “${prefix}”.` : 'No note has a tag yet.'}
        </span>
      ) : (
        <>
          <span className="muted small">Tags:</span>
          {tags.map((t) => (
            <button key={t.tag} type="button" className="tag-suggestion" data-testid="tag-suggestion" data-tag={t.tag} onMouseDown={(e) => e.preventDefault()} onClick={() => onPick(t.tag)}>
              #{t.tag} <span className="muted">{t.notes}</span>
            </button>
          ))}
        </>
      )}
    </div>
  );
}
