// A result snippet as the core cut it, its matched words marked; the note text is only ever rendered as React text.
import type { SnippetSegment } from '../../../core/contract/appApi.ts';

export function HighlightedSnippet({ segments }: { segments: readonly SnippetSegment[] }) {
  return (
    <p className="snippet">
      {segments.map((segment, i) => (segment.match ? <mark key={i}>{segment.text}</mark> : <span key={i}>{segment.text}</span>))}
    </p>
  );
}
