// The notes of a generated scale vault, each a pure function of (seed, index): where it lives, its title, and its
// text recombined from 2-3 real notes of one corpus (headings kept, some words swapped for the corpus's own words,
// wikilinks pointing at other generated notes, mostly of the same corpus, tags kept).
import { seededRandom } from '../../core/random/seededRandom.js';
import { safeTitle, type Family, type SourceNote } from './corpusNotes.js';

export interface PlannedNote {
  family: number;
  base: SourceNote;
  title: string;
  /** Vault-relative, at most 1,000 notes per folder. */
  path: string;
}

export interface MadeNote {
  text: string;
  /** Its headings' text, for queries. */
  headings: string[];
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'do', 'fi', 'gu', 'be'];
const PERTURB_SHARE = 0.04;
const SAME_FAMILY_LINKS = 0.9;
const FENCE = /^\s*(```|~~~)/;
const WIKILINK = /!?\[\[([^\]|]*?)(\|[^\]]*)?\]\]/g;

export class VaultPlan {
  private readonly cumulative: number[];

  /** `count` notes in all: links point among them. */
  constructor(
    private readonly families: Family[],
    private readonly seed: number,
    readonly count: number,
  ) {
    let total = 0;
    this.cumulative = families.map((f) => (total += f.notes.length));
  }

  note(index: number): PlannedNote {
    const random = this.random(index, 0);
    const pick = random() * this.cumulative.at(-1)!;
    const family = this.cumulative.findIndex((c) => pick < c);
    const notes = this.families[family].notes;
    const base = notes[Math.floor(random() * notes.length)];
    const suffix = `${SYLLABLES[Math.floor(random() * SYLLABLES.length)]}${SYLLABLES[Math.floor(random() * SYLLABLES.length)]}${index.toString(36)}`;
    const title = safeTitle(`${base.title} ${suffix}`);
    return { family, base, title, path: `${this.families[family].name}/${String(Math.floor(index / 1000)).padStart(4, '0')}/${title}.md` };
  }

  make(index: number): MadeNote {
    const { family, base } = this.note(index);
    const random = this.random(index, 1);
    const others = [this.otherSource(family, random), ...(random() < 0.5 ? [this.otherSource(family, random)] : [])];
    const otherSections = others.flatMap((n) => n.sections);
    const sections = base.sections.map((s) => (random() < 0.65 || otherSections.length === 0 ? s : otherSections[Math.floor(random() * otherSections.length)]));
    if (sections.length === 0 && otherSections.length > 0) sections.push(otherSections[Math.floor(random() * otherSections.length)]);
    for (let k = 1; k < sections.length; k++) if (random() < 0.15) [sections[k - 1], sections[k]] = [sections[k], sections[k - 1]];

    const vocabulary = this.families[family].vocabulary;
    let links = 0;
    const link = (alias: string | undefined) => (links++, `[[${this.linkTarget(index, family, random)}${alias ?? ''}]]`);
    const vary = (text: string): string => {
      let inFence = false;
      return text
        .split('\n')
        .map((line) => {
          if (FENCE.test(line)) inFence = !inFence;
          if (inFence) return line;
          return line
            .replace(/(?<![\p{L}[(/.#-])\p{L}{4,}(?![\p{L}\]])/gu, (w) => (random() < PERTURB_SHARE ? vocabulary[Math.floor(random() * vocabulary.length)] : w))
            .replace(WIKILINK, (_m, _target: string, alias: string | undefined) => link(alias));
        })
        .join('\n');
    };
    const body = [vary(base.intro), ...sections.map(vary)].join('\n');
    const seeAlso = links >= 2 ? '' : `\n\nSee also: ${Array.from({ length: 2 + Math.floor(random() * 3) }, () => link(undefined)).join(', ')}\n`;
    const tags = [...new Set([...base.tags, ...(random() < 0.3 ? others[0].tags : [])])];
    const front = tags.length ? `---\ntags: [${tags.map((t) => JSON.stringify(t)).join(', ')}]\n---\n` : '';
    const headings = sections.map((s) => s.split('\n', 1)[0].replace(/^#+\s*/, '').replace(/[[\]`*]/g, '').trim()).filter((h) => h !== '');
    return { text: `${front}${body}${seeAlso}\n`, headings };
  }

  /** One generator per note and purpose, so any note can be made (or linked to) alone. */
  private random(index: number, purpose: number): () => number {
    return seededRandom((Math.imul(this.seed ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b) ^ Math.imul(purpose + 1, 0xc2b2ae35)) >>> 0);
  }

  private otherSource(family: number, random: () => number): SourceNote {
    const from = random() < SAME_FAMILY_LINKS ? this.families[family] : this.families[Math.floor(random() * this.families.length)];
    return from.notes[Math.floor(random() * from.notes.length)];
  }

  private linkTarget(index: number, family: number, random: () => number): string {
    const wantSame = random() < SAME_FAMILY_LINKS;
    for (let tries = 0; ; tries++) {
      const j = Math.floor(random() * this.count);
      if (j === index && this.count > 1) continue;
      const target = this.note(j);
      if (!wantSame || target.family === family || tries >= 20) return target.title;
    }
  }
}
