// config.toml as text: a plain textarea with a line-number gutter. Saving a file the core refuses changes nothing;
// its problems are listed, each with its line marked in the gutter.
import { useEffect, useRef, useState } from 'react';
import type { ConfigProblem, ConfigView, SaveConfigResult } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { ConfigProblemList } from './ConfigProblemList.tsx';

interface ConfigTextEditorProps {
  view: ConfigView;
  onSaved(result: Extract<SaveConfigResult, { ok: true }>): void;
}

export function ConfigTextEditor({ view, onSaved }: ConfigTextEditorProps) {
  const { api } = useApi();
  const [text, setText] = useState(view.text);
  const [problem, setProblem] = useState<ConfigProblem | null>(view.problem ?? null);
  const [saving, setSaving] = useState(false);
  const [scrollTop, setScrollTop] = useState(0);
  const textarea = useRef<HTMLTextAreaElement>(null);

  // A new view from disk replaces the text only when the user has no unsaved edits.
  const shownText = useRef(view.text);
  useEffect(() => {
    setText((current) => (current === shownText.current ? view.text : current));
    shownText.current = view.text;
    setProblem((current) => view.problem ?? (current?.line ? current : null));
  }, [view]);

  const lineCount = text.split('\n').length;
  // Every problem's line is marked in the gutter, its message on hover.
  const problemLines = new Map((problem ? (problem.problems ?? [problem]) : []).filter((p) => p.line).map((p) => [p.line!, p.message]));
  const save = async () => {
    setSaving(true);
    try {
      const result = await api.saveConfigText(text);
      if (result.ok) {
        setProblem(null);
        onSaved(result);
      } else {
        setProblem(result.problem);
        if (result.problem.line) scrollToLine(result.problem.line);
      }
    } catch (e) {
      setProblem({ file: view.file, message: e instanceof Error ? e.message : String(e) });
    } finally {
      setSaving(false);
    }
  };

  const scrollToLine = (line: number) => {
    const area = textarea.current;
    if (!area) return;
    const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 20;
    area.scrollTop = Math.max(0, (line - 4) * lineHeight);
  };

  return (
    <div className="config-editor" data-testid="config-editor">
      <div className="editor-frame">
        <div className="gutter" aria-hidden="true" style={{ transform: `translateY(${-scrollTop}px)` }}>
          {Array.from({ length: lineCount }, (_, i) => (
            <div key={i} className={problemLines.has(i + 1) ? 'error-line' : undefined} title={problemLines.get(i + 1)}>
              {i + 1}
            </div>
          ))}
        </div>
        <textarea
          ref={textarea}
          data-testid="config-text"
          aria-label="config.toml"
          value={text}
          spellCheck={false}
          wrap="off"
          onChange={(e) => setText(e.target.value)}
          onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        />
      </div>
      {problem && (
        <div className="error-text config-problem" role="alert" data-testid="config-error">
          <ConfigProblemList problem={problem} />
          <span className="muted">Nothing was changed.</span>
        </div>
      )}
      <div className="form-actions">
        <span className="muted small">{view.file}</span>
        <button type="button" className="ghost" disabled={text === view.text || saving} onClick={() => (setText(view.text), setProblem(view.problem ?? null))}>
          Revert
        </button>
        <button type="button" className="primary" disabled={text === view.text || saving} onClick={() => void save()} data-testid="save-config-text">
          {saving ? 'Saving…' : 'Save config.toml'}
        </button>
      </div>
    </div>
  );
}
