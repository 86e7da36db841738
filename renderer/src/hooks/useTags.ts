// The open vault's tags with their note counts, fetched when first needed and again when the index changes.
import { useEffect, useState } from 'react';
import type { TagCount } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';

/** Null until the list for this vault and revision has arrived (an older list stays shown meanwhile). */
export function useTags(needed: boolean, revision: number, vault: string | null): TagCount[] | null {
  const { api } = useApi();
  const [tags, setTags] = useState<{ key: string; tags: TagCount[] } | null>(null);
  const key = `${vault}:${revision}`;
  useEffect(() => {
    if (!needed || !vault || tags?.key === key) return;
    let cancelled = false;
    api.listTags().then(
      (list) => {
        if (!cancelled) setTags({ key, tags: list });
      },
      () => {
        if (!cancelled) setTags({ key, tags: [] });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, needed, key, vault, tags?.key]);
  return tags && tags.key.startsWith(`${vault}:`) ? tags.tags : null;
}
