/**
 * Checks a model's citation markers after the fact: [n] must name one of the numbered sources. A marker that
 * names none (the model invented or miscounted it) is removed from the text and reported, so no answer points
 * at a passage that does not exist. Handles [1], [1][2], [1, 2] and [1; 2]; leaves Markdown links `[1](url)`.
 */
const MARKER = /(\s*)\[(\d+(?:\s*[,;]\s*\d+)*)\](?!\()/g;

export interface CheckedCitations {
  text: string;
  /** Valid source numbers cited, ascending. */
  cited: number[];
  /** Numbers cited that name no source, ascending. */
  dropped: number[];
}

export function checkCitations(text: string, sourceCount: number): CheckedCitations {
  const cited = new Set<number>();
  const dropped = new Set<number>();
  const checked = text.replace(MARKER, (_match, space: string, list: string) => {
    const valid: number[] = [];
    for (const part of list.split(/[,;]/)) {
      const n = Number(part.trim());
      if (n >= 1 && n <= sourceCount) {
        valid.push(n);
        cited.add(n);
      } else dropped.add(n);
    }
    return valid.length ? `${space}${valid.map((n) => `[${n}]`).join('')}` : '';
  });
  const ascending = (set: Set<number>) => [...set].sort((a, b) => a - b);
  return { text: checked, cited: ascending(cited), dropped: ascending(dropped) };
}
