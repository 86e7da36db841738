// Tags to complete the `tag:` being typed, from the index's tag list, each with how many notes carry it. The list
// is an ARIA listbox driven from the search box (SearchBar): App renders the two apart, so the list's highlight and
// whether Esc closed it live in a small store here, which also survives the list moving between empty states.
import { useEffect, useRef, useSyncExternalStore, type KeyboardEvent } from 'react';
import type { TagCount } from '../../../core/contract/appApi.ts';
import { listboxAction, optionId } from '../hooks/listboxKeys.ts';

const LIST_ID = 'tag-suggestion-list';

interface ShownTags {
  /** The prefix and the tags offered: a new list starts without a highlight, and open. */
  key: string;
  tags: string[];
  active: number;
  closed: boolean;
  mounted: boolean;
  pick?: (tag: string) => void;
}

let shown: ShownTags = { key: '', tags: [], active: -1, closed: false, mounted: false };
const listeners = new Set<() => void>();
const update = (next: Partial<ShownTags>) => {
  shown = { ...shown, ...next };
  for (const listener of listeners) listener();
};
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};
const useShownTags = () => useSyncExternalStore(subscribe, () => shown);
const isOpen = (list: ShownTags) => list.mounted && !list.closed && list.tags.length > 0;

/** The search box's keys while suggestions show: true when the key was the list's (↑/↓, Tab/Enter on a highlight, Esc). */
export function handleTagSuggestionKey(event: KeyboardEvent): boolean {
  if (!isOpen(shown)) return false;
  const action = listboxAction(event, shown.active, shown.tags.length);
  if (!action) return false;
  if (action.type === 'move') update({ active: action.active });
  else if (action.type === 'close') update({ closed: true, active: -1 });
  else {
    update({ active: -1 });
    shown.pick?.(shown.tags[action.index]!);
  }
  event.preventDefault();
  return true;
}

/** The combobox attributes of the search box, naming the list and its highlighted tag while it shows. */
export function useTagSuggestionsAria() {
  const list = useShownTags();
  const open = isOpen(list);
  return {
    role: 'combobox' as const,
    'aria-autocomplete': 'list' as const,
    'aria-expanded': open,
    'aria-controls': open ? LIST_ID : undefined,
    'aria-activedescendant': open && list.active >= 0 ? optionId(LIST_ID, list.active) : undefined,
  };
}

interface TagSuggestionsProps {
  tags: TagCount[];
  /** What is typed of the tag so far. */
  prefix: string;
  onPick(tag: string): void;
}

export function TagSuggestions({ tags, prefix, onPick }: TagSuggestionsProps) {
  const list = useShownTags();
  const names = tags.map((t) => t.tag);
  const key = `${prefix}\n${names.join('\n')}`;
  const pick = useRef(onPick);
  pick.current = onPick;
  useEffect(() => {
    update({ mounted: true, pick: (tag) => pick.current(tag), ...(shown.key === key ? {} : { key, tags: names, active: -1, closed: false }) });
    return () => update({ mounted: false });
    // `names` is `key`'s content: the list is new only when the key is.
  }, [key]);
  const current = list.key === key;
  if (current && list.closed) return null;
  const active = current ? list.active : -1;
  return (
    <div className="tag-suggestions" data-testid="tag-suggestions">
      {tags.length === 0 ? (
        <span className="muted small" data-testid="tag-suggestions-none">
          {prefix ? `No tag starts with “${prefix}”.` : 'No note has a tag yet.'}
        </span>
      ) : (
        <>
          <span className="muted small" aria-hidden="true">
            Tags:
          </span>
          <div role="listbox" id={LIST_ID} aria-label="Tags">
            {tags.map((t, i) => (
              <button
                key={t.tag}
                id={optionId(LIST_ID, i)}
                type="button"
                role="option"
                aria-selected={i === active}
                tabIndex={-1}
                className={`tag-suggestion${i === active ? ' active' : ''}`}
                data-testid="tag-suggestion"
                data-tag={t.tag}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => onPick(t.tag)}
              >
                #{t.tag} <span className="muted">{t.notes}</span>
              </button>
            ))}
          </div>
        </>
      )}
    </div>
  );
}
