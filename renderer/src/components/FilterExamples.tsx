// The filter operators in the help text, each with an example value.
import { FILTER_EXAMPLES } from '../search/filterExamples.ts';

/** The filter operators with an example each: `path:Folder/`, `tag:name`, `after:2026-01-01` or `before:2026-02`. */
export function FilterExamples() {
  return (
    <>
      {FILTER_EXAMPLES.map((example, i) => (
        <span key={example}>
          {i > 0 && (i === FILTER_EXAMPLES.length - 1 ? ' or ' : ', ')}
          <code>{example}</code>
        </span>
      ))}
    </>
  );
}
