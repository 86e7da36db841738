// Every problem of a rejected config.toml, one row each with its line and key (a problem alone is one row).
import type { ConfigProblem } from '../../../core/contract/appApi.ts';

export function ConfigProblemList({ problem }: { problem: ConfigProblem }) {
  return (
    <ul className="config-problem-list" data-testid="config-problem-list">
      {(problem.problems ?? [problem]).map((p, i) => (
        <li key={i} data-testid="config-problem" data-line={p.line}>
          {p.line ? <strong>Line {p.line}{p.column ? `, column ${p.column}` : ''}: </strong> : null}
          {p.key ? <code>{p.key}</code> : null} {p.message}
        </li>
      ))}
    </ul>
  );
}
