// Converting between an option's value and what its form input holds, and checking a draft against the option's
// schema (type, choices, min/max) before anything is sent: a bad value is shown next to its field and not saved.
import type { ConfigOptionView } from '../../../core/contract/appApi.ts';

/** What an input holds: text for most types, a flag for booleans. */
export type Draft = string | boolean;

export function optionId(option: ConfigOptionView): string {
  return `${option.section}.${option.key}`;
}

export function toDraft(option: ConfigOptionView, value: unknown): Draft {
  if (option.type === 'boolean') return value === true;
  if (option.type === 'string[]') return Array.isArray(value) ? value.join('\n') : '';
  return value === undefined || value === null ? '' : String(value);
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

export function parseDraft(option: ConfigOptionView, draft: Draft): Parsed {
  switch (option.type) {
    case 'boolean':
      return { ok: true, value: draft === true };
    case 'string[]':
      return {
        ok: true,
        value: String(draft)
          .split('\n')
          .map((line) => line.trim())
          .filter(Boolean),
      };
    case 'string': {
      const text = String(draft);
      if (option.choices && !option.choices.includes(text)) return { ok: false, error: `Choose one of ${option.choices.join(', ')}.` };
      return { ok: true, value: text };
    }
    case 'integer':
    case 'number': {
      const text = String(draft).trim();
      if (!text) return { ok: false, error: 'Enter a number.' };
      const n = Number(text);
      if (!Number.isFinite(n)) return { ok: false, error: 'Enter a number.' };
      if (option.type === 'integer' && !Number.isInteger(n)) return { ok: false, error: 'Enter a whole number.' };
      if (option.min !== undefined && n < option.min) return { ok: false, error: `Must be at least ${option.min}.` };
      if (option.max !== undefined && n > option.max) return { ok: false, error: `Must be at most ${option.max}.` };
      return { ok: true, value: n };
    }
  }
}

export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function describeDefault(option: ConfigOptionView): string {
  const value = option.default;
  if (Array.isArray(value)) return value.length ? value.join(', ') : '(none)';
  if (value === '') return '(empty)';
  return String(value);
}
