// The filter operators (core/contract/filters.ts) as the help text shows them, each with an example value.
import { FILTER_OPERATORS } from '../../../core/contract/filters.ts';

export type FilterOperator = (typeof FILTER_OPERATORS)[number];

const EXAMPLE: Record<FilterOperator, string> = { path: 'Folder/', tag: 'name', after: '2026-01-01', before: '2026-02' };

/** `path:Folder/`, `tag:name`, `after:2026-01-01`, `before:2026-02`, in the contract's order. */
export const FILTER_EXAMPLES: readonly string[] = FILTER_OPERATORS.map((operator) => `${operator}:${EXAMPLE[operator]}`);
