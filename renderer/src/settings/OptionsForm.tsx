// The settings form, generated from ConfigView.options: one input per option by type (choices as selects, numbers
// with min/max, lists one per line), its default and explanation, and the error next to the field when a value is
// refused (here or by the core). Saving writes only the changed values into config.toml, keeping its comments.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { ConfigOptionView, ConfigView, SaveConfigResult } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';
import { describeDefault, optionId, parseDraft, sameValue, toDraft, type Draft } from './optionValues.ts';

interface OptionsFormProps {
  view: ConfigView;
  onSaved(result: Extract<SaveConfigResult, { ok: true }>): void;
}

/** Options with a control of their own elsewhere in Settings: the embedding model has the model picker. */
const OWN_CONTROL = new Set(['embedding.model']);

export function OptionsForm({ view: fullView, onSaved }: OptionsFormProps) {
  const { api } = useApi();
  const view = useMemo(() => ({ ...fullView, options: fullView.options.filter((o) => !OWN_CONTROL.has(optionId(o))) }), [fullView]);
  const initialDrafts = useMemo(() => Object.fromEntries(view.options.map((o) => [optionId(o), toDraft(o, o.value)])), [view]);
  const [drafts, setDrafts] = useState<Record<string, Draft>>(initialDrafts);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  // A fresh view (saved, reloaded from disk, rebuilt) updates the fields the user has not touched.
  const shown = useRef(initialDrafts);
  useEffect(() => {
    setDrafts((current) => Object.fromEntries(Object.entries(initialDrafts).map(([id, fresh]) => [id, current[id] === shown.current[id] || current[id] === undefined ? fresh : current[id]])));
    shown.current = initialDrafts;
  }, [initialDrafts]);

  const sections = useMemo(() => {
    const grouped = new Map<string, ConfigOptionView[]>();
    for (const option of view.options) grouped.set(option.section, [...(grouped.get(option.section) ?? []), option]);
    return [...grouped];
  }, [view]);

  const changed = view.options.filter((o) => {
    const parsed = parseDraft(o, drafts[optionId(o)]);
    return !parsed.ok || !sameValue(parsed.value, o.value);
  });

  const setDraft = (option: ConfigOptionView, draft: Draft) => {
    const id = optionId(option);
    setDrafts((d) => ({ ...d, [id]: draft }));
    const parsed = parseDraft(option, draft);
    setErrors((e) => {
      const next = { ...e };
      if (parsed.ok) delete next[id];
      else next[id] = parsed.error;
      return next;
    });
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setFormError(null);
    const values: Record<string, unknown> = {};
    const fieldErrors: Record<string, string> = {};
    for (const option of changed) {
      const parsed = parseDraft(option, drafts[optionId(option)]);
      if (parsed.ok) values[optionId(option)] = parsed.value;
      else fieldErrors[optionId(option)] = parsed.error;
    }
    setErrors(fieldErrors);
    if (Object.keys(fieldErrors).length > 0 || Object.keys(values).length === 0) return;
    setSaving(true);
    try {
      const result = await api.saveConfigValues(values);
      if (result.ok) onSaved(result);
      else if (result.problem.key && view.options.some((o) => optionId(o) === result.problem.key)) setErrors({ [result.problem.key]: result.problem.message });
      else setFormError(`${result.problem.message}${result.problem.line ? ` (line ${result.problem.line})` : ''}`);
    } catch (e) {
      setFormError(e instanceof Error ? e.message : String(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="options-form" onSubmit={(e) => void submit(e)} noValidate data-testid="options-form">
      {sections.map(([section, options]) => (
        <fieldset key={section}>
          <legend>[{section}]</legend>
          {options.map((option) => (
            <OptionField key={optionId(option)} option={option} draft={drafts[optionId(option)]} error={errors[optionId(option)]} onChange={(d) => setDraft(option, d)} />
          ))}
        </fieldset>
      ))}
      <div className="form-actions sticky">
        {formError && (
          <p className="error-text" role="alert" data-testid="form-error">
            {formError}
          </p>
        )}
        <span className="muted small">{changed.length === 0 ? 'No changes' : `${changed.length} change${changed.length === 1 ? '' : 's'}`}</span>
        <button type="button" className="ghost" disabled={changed.length === 0 || saving} onClick={() => (setDrafts(initialDrafts), setErrors({}))}>
          Discard
        </button>
        <button type="submit" className="primary" disabled={changed.length === 0 || saving} data-testid="save-options">
          {saving ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}

interface OptionFieldProps {
  option: ConfigOptionView;
  draft: Draft;
  error?: string;
  onChange(draft: Draft): void;
}

function OptionField({ option, draft, error, onChange }: OptionFieldProps) {
  const id = `option-${optionId(option)}`;
  const described = `${id}-doc`;
  const common = { id, 'aria-describedby': described, 'aria-invalid': error ? true : undefined, 'data-testid': `option-${optionId(option)}` };
  let input;
  if (option.type === 'boolean') {
    input = <input type="checkbox" {...common} checked={draft === true} onChange={(e) => onChange(e.target.checked)} />;
  } else if (option.choices) {
    input = (
      <select {...common} value={String(draft)} onChange={(e) => onChange(e.target.value)}>
        {option.choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    );
  } else if (option.type === 'string[]') {
    input = <textarea {...common} rows={Math.min(6, Math.max(2, String(draft).split('\n').length))} value={String(draft)} onChange={(e) => onChange(e.target.value)} spellCheck={false} />;
  } else if (option.type === 'integer' || option.type === 'number') {
    input = <input type="number" {...common} value={String(draft)} min={option.min} max={option.max} step={option.type === 'integer' ? 1 : 'any'} onChange={(e) => onChange(e.target.value)} />;
  } else {
    input = <input type="text" {...common} value={String(draft)} onChange={(e) => onChange(e.target.value)} spellCheck={false} />;
  }
  const range =
    option.min !== undefined && option.max !== undefined
      ? `; ${option.min} to ${option.max}`
      : option.min !== undefined
        ? `; at least ${option.min}`
        : option.max !== undefined
          ? `; at most ${option.max}`
          : '';
  return (
    <div className={`option${error ? ' has-error' : ''}${option.type === 'boolean' ? ' boolean' : ''}`}>
      <label htmlFor={id}>
        <code>{option.key}</code>
        {option.rebuilds && <span className="badge" title="Changing this rebuilds the index">rebuilds index</span>}
      </label>
      <div className="option-input">{input}</div>
      <p className="option-doc" id={described}>
        {option.doc} <span className="muted">Default: {describeDefault(option)}{range}.</span>
      </p>
      {error && (
        <p className="field-error" role="alert" data-testid={`error-${optionId(option)}`}>
          {error}
        </p>
      )}
    </div>
  );
}
