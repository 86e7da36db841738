// Front matter, or a Logseq page's `key:: value` properties, as a small properties table (never as body text).
import { parseProperties, type Properties } from '../markdown/frontMatter.ts';

export function PropertiesTable({ head, pageProperties = [] }: { head: string; pageProperties?: Array<[string, string]> }) {
  const front = parseProperties(head);
  // Both kinds in one note (front matter, then `key:: value` lines): one table.
  const properties: Properties | null = front?.ok ? { ok: true, entries: [...front.entries, ...pageProperties] } : (front ?? (pageProperties.length ? { ok: true, entries: pageProperties } : null));
  if (!properties) return null;
  if (!properties.ok) {
    return (
      <details className="properties invalid">
        <summary>Properties (could not be read)</summary>
        <pre>{properties.raw}</pre>
      </details>
    );
  }
  if (properties.entries.length === 0) return null;
  return (
    <table className="properties" data-testid="note-properties">
      <tbody>
        {properties.entries.map(([key, value], i) => (
          <tr key={`${i}:${key}`}>
            <th scope="row">{key}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
