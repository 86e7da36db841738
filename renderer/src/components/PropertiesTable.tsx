// Front matter, or a Logseq page's `key:: value` properties, as a small properties table (never as body text).
import type { NoteProperties } from '../../../core/contract/appApi.ts';

export function PropertiesTable({ properties }: { properties: NoteProperties | null }) {
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
