// The note's properties, for the small table above the body: YAML front matter (Obsidian, Dendron) or Logseq
// `key:: value` lines. Values come back as display strings; rendering them is React's job (as text).
import { parse } from 'yaml';

export type Properties = { ok: true; entries: Array<[string, string]> } | { ok: false; raw: string };

function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (Array.isArray(value)) return value.map(display).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function parseProperties(head: string): Properties | null {
  const text = head.replace(/^\uFEFF/, '');
  if (!text.trim()) return null;
  const yamlBlock = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\s*(?:\r?\n|$)/.exec(text);
  if (yamlBlock) {
    try {
      const data = parse(yamlBlock[1]) as unknown;
      if (data === null || data === undefined) return null;
      if (typeof data !== 'object' || Array.isArray(data)) return { ok: false, raw: yamlBlock[1] };
      return { ok: true, entries: Object.entries(data as Record<string, unknown>).map(([k, v]) => [k, display(v)]) };
    } catch {
      return { ok: false, raw: yamlBlock[1] };
    }
  }
  const logseq = [...text.matchAll(/^([\w-]+)::\s*(.*)$/gm)].map((m): [string, string] => [m[1], m[2].trim()]);
  if (logseq.length) return { ok: true, entries: logseq };
  return { ok: false, raw: text };
}
