/** Page names and journal dates from Logseq file names. */

/**
 * The page name a file name stands for: the extension dropped, Logseq's namespace separators decoded (`a___b.md`
 * and the older `a%2Fb.md` → `a/b`) and other percent-escapes (`New to Logseq%3F.md` → `New to Logseq?`) decoded.
 * Folders are not part of the name.
 */
export function pageNameFromPath(path: string): string {
  const file = path.slice(path.lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  const base = dot > 0 ? file.slice(0, dot) : file;
  return decodePercent(base.replaceAll('___', '/'));
}

/** Decodes `%XX` escapes that form valid UTF-8, leaving anything else (a literal `100%`) as written. */
function decodePercent(name: string): string {
  return name.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** Logseq's default `:journal/file-name-format`. */
export const DEFAULT_JOURNAL_FILE_FORMAT = 'yyyy_MM_dd';

/**
 * The day a journal page is for, as an ISO date (`2024-01-15`), from a file in a `journals/` folder named in
 * `format` (tokens `yyyy`, `MM`, `M`, `dd`, `d`; other characters literal); undefined for any other file or a
 * day that does not exist.
 */
export function journalDateFromPath(path: string, format = DEFAULT_JOURNAL_FILE_FORMAT): string | undefined {
  const parts = path.split('/');
  if (parts.length < 2 || parts.at(-2)!.toLowerCase() !== 'journals') return undefined;
  const file = parts.at(-1)!;
  const dot = file.lastIndexOf('.');
  const base = dot > 0 ? file.slice(0, dot) : file;
  const order: Array<'y' | 'm' | 'd'> = [];
  const pattern = format.replace(/yyyy|MM?|dd?|[.*+?^${}()|[\]\\]/g, (token) => {
    if (token === 'yyyy') return order.push('y'), '(\\d{4})';
    if (token === 'MM' || token === 'dd') return order.push(token[0] === 'M' ? 'm' : 'd'), '(\\d{2})';
    if (token === 'M' || token === 'd') return order.push(token === 'M' ? 'm' : 'd'), '(\\d{1,2})';
    return `\\${token}`;
  });
  const match = new RegExp(`^${pattern}$`).exec(base);
  if (!match || order.length !== 3) return undefined;
  const value = (kind: 'y' | 'm' | 'd') => Number(match[order.indexOf(kind) + 1]);
  const [year, month, day] = [value('y'), value('m'), value('d')];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A journal day as Logseq titles it by default (`:journal/page-title-format` "MMM do, yyyy"): `Jan 15th, 2024`. */
export function journalTitle(isoDay: string): string {
  const [year, month, day] = isoDay.split('-').map(Number);
  const suffix = day % 100 >= 11 && day % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][day % 10] ?? 'th');
  return `${MONTHS[month - 1]} ${day}${suffix}, ${year}`;
}
