// A result snippet with the query terms marked; the note text is only ever rendered as React text.
import { buildSnippet } from '../search/snippet.ts';

export function HighlightedSnippet({ text, terms }: { text: string; terms: readonly string[] }) {
  const segments = buildSnippet(text, terms);
  return (
    <p className="snippet">
      {segments.map((segment, i) => (segment.match ? <mark key={i}>{segment.text}</mark> : <span key={i}>{segment.text}</span>))}
    </p>
  );
}
