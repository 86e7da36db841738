/** One injected fault and what became of it. */
export interface FaultRecord {
  scenario: string;
  /** What was done, e.g. "kill -9 cairn index at 1.83 s (embedding)". */
  fault: string;
  /** Differences from the fresh index after recovery. */
  mismatches: string[];
  /** Processes that outlived their bound (and were killed). */
  hangs: string[];
  /** Exceptions that escaped, unexplained exits, signals we did not send. */
  crashes: string[];
  /** Facts worth a line that are not failures (clear errors, re-embedded counts, timings). */
  notes: string[];
}

interface Totals {
  faults: number;
  recovered: number;
  mismatches: number;
  hangs: number;
  crashes: number;
  ms: number;
}

const DETAIL_LINES = 4;

/** Prints one line per fault as it is recorded, and the summary table at the end (plain lines: they read well in logs). */
export class Report {
  private readonly totals = new Map<string, Totals>();
  private readonly started = Date.now();

  constructor(private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)) {}

  private count = 0;

  /** Prints the fault's line (and details) and returns its number. */
  record(record: FaultRecord, ms: number): number {
    const recovered = record.mismatches.length === 0 && record.hangs.length === 0 && record.crashes.length === 0;
    const outcome = recovered ? 'recovered' : record.hangs.length ? 'HANG' : record.crashes.length ? 'CRASH' : 'MISMATCH';
    const extra = record.notes.length ? `; ${record.notes.join('; ')}` : '';
    this.write(`#${this.count + 1} [${record.scenario}] ${record.fault} → ${outcome}, ${record.mismatches.length} mismatches (${(ms / 1000).toFixed(1)} s)${extra}`);
    for (const line of [...record.hangs.map((h) => `hang: ${h}`), ...record.crashes.map((c) => `crash: ${c}`), ...record.mismatches].slice(0, DETAIL_LINES)) this.write(`    ${line}`);
    const hidden = record.hangs.length + record.crashes.length + record.mismatches.length - DETAIL_LINES;
    if (hidden > 0) this.write(`    … and ${hidden} more`);
    const t = this.totals.get(record.scenario) ?? { faults: 0, recovered: 0, mismatches: 0, hangs: 0, crashes: 0, ms: 0 };
    t.faults += 1;
    t.recovered += recovered ? 1 : 0;
    t.mismatches += record.mismatches.length;
    t.hangs += record.hangs.length;
    t.crashes += record.crashes.length;
    t.ms += ms;
    this.totals.set(record.scenario, t);
    return ++this.count;
  }

  note(line: string): void {
    this.write(line);
  }

  get failed(): boolean {
    return [...this.totals.values()].some((t) => t.mismatches || t.hangs || t.crashes);
  }

  summary(): string[] {
    const header = ['scenario', 'faults', 'recovered', 'mismatches', 'hangs', 'crashes', 'time'];
    const rows = [...this.totals].map(([name, t]) => [name, t.faults, t.recovered, t.mismatches, t.hangs, t.crashes, `${(t.ms / 1000).toFixed(0)} s`].map(String));
    const sum = (key: keyof Totals) => [...this.totals.values()].reduce((s, t) => s + t[key], 0);
    rows.push(['total', sum('faults'), sum('recovered'), sum('mismatches'), sum('hangs'), sum('crashes'), `${((Date.now() - this.started) / 1000).toFixed(0)} s`].map(String));
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
    return [line(header), ...rows.map(line)];
  }
}
