// Front matter as a small properties table (never as body text).
import { parseProperties } from '../markdown/frontMatter.ts';

export function PropertiesTable({ head }: { head: string }) {
  const properties = parseProperties(head);
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
        {properties.entries.map(([key, value]) => (
          <tr key={key}>
            <th scope="row">{key}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
