import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerUnits } from '../core/search/answerUnits.js';
import { extractiveAnswer, looksRelevant, NOT_ANSWERED } from '../core/answer/extractiveAnswer.js';
import { sectionEvidence, type SectionEvidence } from '../core/answer/sectionEvidence.js';
import { questionWords, termSet } from '../core/search/termOverlap.js';
import type { ScoredUnit } from '../core/search/sentenceRanker.js';
import type { AnswerSource } from '../core/contract/answer.js';
import type { ChunkPart } from '../core/chunking/types.js';

/**
 * Which retrieved sections an extractive answer quotes, given their evidence: the rule between "quote what the
 * search found" and "your notes don't seem to answer this". Sections and scores are made by hand, so the rule is
 * tested apart from any embedding model.
 */
const SETTINGS = { minConfidence: 0.5, maxSentences: 4 };

function source(rank: number, heading: string, text: string, parts?: ChunkPart[]): AnswerSource {
  const piece = { chunkId: `Note${rank}.md#${heading}@0`, path: `Note${rank}.md`, title: `Note${rank}`, headerPath: [heading], anchor: heading, startLine: 1, endLine: text.split('\n').length, text, ...(parts ? { parts } : {}) };
  return { chunkId: piece.chunkId, path: piece.path, title: piece.title, headerPath: [heading], startLine: 1, endLine: piece.endLine, rank, score: 1 / rank, pieces: [piece] };
}

/** Every unit of the source scored `score` (the first a little higher), each with its own vector (no two alike). */
function unitsOf(s: AnswerSource, score: number): ScoredUnit[] {
  const piece = s.pieces[0];
  return answerUnits(piece.text).map((unit, i) => {
    const startLine = piece.text.slice(0, unit.start).split('\n').length;
    const vector = new Float32Array(64);
    vector[(s.rank * 8 + i) % 64] = 1;
    return { source: s, pieceIndex: 0, piece, unit, startLine, endLine: startLine, cosine: score, coverage: score, score: score - i * 0.01, vector, terms: new Set(unit.plain.toLowerCase().split(/\W+/)) };
  });
}

const judged = (score: number, sharedTerms: number, questionTerms = 8): SectionEvidence => ({ score, sharedTerms, questionTerms });

describe('extractive answers quote what the search found', () => {
  it('a section looks relevant when it reaches the bar, nears it sharing two content words, or holds three of the question\'s words', () => {
    assert.equal(looksRelevant(judged(0.5, 0), 0.5), true);
    assert.equal(looksRelevant(judged(0.42, 2), 0.5), true);
    assert.equal(looksRelevant(judged(0.42, 1), 0.5), false, 'one shared word is a coincidence ("football" in a table of emoji)');
    assert.equal(looksRelevant(judged(0.2, 3, 12), 0.5), true, 'three words the question names, whatever the embedding says (a paraphrase)');
    assert.equal(looksRelevant(judged(0.3, 2, 9), 0.5), false, 'two words of a long question: an off-topic question meets a section on as many');
    assert.equal(looksRelevant(judged(0.2, 2, 3), 0.5), false, 'two words are too few to stand on alone');
    assert.equal(looksRelevant(judged(0, 6, 6), 0.5), false, 'nothing quotable');
    assert.equal(looksRelevant(undefined, 0.5), false);
  });

  it('counts a compound the question names as one word, found by its whole or a part', () => {
    assert.deepEqual(questionWords('Can the built-in calculator show fractions of tasks and task lists?'), [['built-in', 'built'], ['calcul'], ['show'], ['fraction'], ['task'], ['list']]);
    assert.deepEqual(questionWords('How does Get-ChildItem list a folder?'), [['get-childitem', 'childitem', 'child', 'item'], ['list'], ['folder']]);
    const question = 'Can the built-in calculator show fractions?';
    const changelog = source(1, 'Changelog', 'Built-in properties no longer display as rich properties.\n');
    const calculator = source(2, 'Result formatting', 'The calculator shows each result as a fraction.\n');
    const scored = [changelog, calculator].flatMap((s) => unitsOf(s, 0.3).map((u) => ({ ...u, terms: termSet(u.unit.plain) })));
    const evidence = sectionEvidence(question, [changelog, calculator], scored);
    // "built-in" gives the terms built-in and built: one word of the question, not two.
    assert.equal(evidence.get(changelog)!.sharedTerms, 1);
    assert.equal(evidence.get(calculator)!.sharedTerms, 3);
    assert.equal(evidence.get(calculator)!.questionTerms, 4);
  });

  it('answers from the top-ranked section when it looks relevant though no section reaches the bar', () => {
    const top = source(1, 'Renewal', 'Renew the permit online two weeks ahead.\nBring the old permit to the counter.\n');
    const other = source(2, 'Fees', 'The fee is paid by card at the desk.\n');
    const evidence = new Map([[top, judged(0.43, 3)], [other, judged(0.3, 1)]]);
    const answer = extractiveAnswer([top, other], [...unitsOf(top, 0.43), ...unitsOf(other, 0.3)], evidence, SETTINGS);
    assert.equal(answer.confident, true, answer.answer);
    assert.deepEqual(answer.citations.map((c) => c.path), ['Note1.md']);
    assert.match(answer.answer, /Renew the permit online two weeks ahead\. .*\[1\]/);
  });

  it('keeps the top-ranked section in an answer drawn from a stronger one below it', () => {
    const top = source(1, 'Renewal', 'Renew the permit online two weeks ahead.\n');
    const strong = source(2, 'Deadlines', 'Permits expire after five years, on the holder\'s birthday.\n');
    const evidence = new Map([[top, judged(0.44, 3)], [strong, judged(0.7, 5)]]);
    const answer = extractiveAnswer([top, strong], [...unitsOf(top, 0.44), ...unitsOf(strong, 0.7)], evidence, SETTINGS);
    assert.equal(answer.confident, true);
    assert.deepEqual(answer.citations.map((c) => c.path), ['Note1.md', 'Note2.md'], 'the search\'s order, both cited');
  });

  it('does not pass over a section that looks relevant to quote one ranked below it', () => {
    const top = source(1, 'Limits', 'Limit the number of tasks shown.\n');
    const between = source(2, 'Order of operations', 'Filters run first, then limits, then grouping.\n');
    const third = source(3, 'Group counts', 'A group heading shows its count when asked.\n');
    const fourth = source(4, 'Styling', 'Group headings can be styled.\n');
    const ask = (judgedBetween: SectionEvidence) => {
      const evidence = new Map([[top, judged(0.7, 4)], [between, judgedBetween], [third, judged(0.6, 3)], [fourth, judged(0.45, 3)]]);
      const scored = [...unitsOf(top, 0.7), ...unitsOf(between, judgedBetween.score), ...unitsOf(third, 0.6), ...unitsOf(fourth, 0.45)];
      return extractiveAnswer([top, between, third, fourth], scored, evidence, SETTINGS).citations.map((c) => c.path);
    };
    assert.deepEqual(ask(judged(0.42, 3)), ['Note1.md', 'Note2.md', 'Note3.md'], 'ranked above a quoted section and looks relevant: quoted');
    assert.deepEqual(ask(judged(0.3, 1)), ['Note1.md', 'Note3.md'], 'does not look relevant: passed over');
  });

  it('leads with the top-ranked section when the answer rests on sections that only look relevant', () => {
    const top = source(1, 'Quote characters', 'A rune literal is a single character written as its numeric code point.\n');
    const below = source(2, 'Output formats', 'The isPlainText option parses templates with the text package instead.\n');
    const evidence = new Map([[top, judged(0.3, 3)], [below, judged(0.3, 4)]]);
    const answer = extractiveAnswer([top, below], [...unitsOf(top, 0.3), ...unitsOf(below, 0.3)], evidence, SETTINGS);
    assert.equal(answer.confident, true);
    assert.deepEqual(answer.citations.map((c) => c.path), ['Note1.md', 'Note2.md'], 'the search\'s best is not dropped for a section only as plausible');
    // With a section that answers on its own evidence, one that does not look relevant stays out.
    const strongBelow = new Map([[top, judged(0.3, 1)], [below, judged(0.7, 5)]]);
    assert.deepEqual(extractiveAnswer([top, below], [...unitsOf(top, 0.3), ...unitsOf(below, 0.7)], strongBelow, SETTINGS).citations.map((c) => c.path), ['Note2.md']);
  });

  it('quotes a top section worded unlike the question when its best sentence answers about as well as the chosen one', () => {
    // The search's second section answers a paraphrase: few of the question's words, so little evidence of its own.
    const top = source(1, 'List markers', 'Tasks calls the characters that start a list item list markers.\n');
    const paraphrased = source(2, 'Ignoring clicks', 'Statuses purely for display never toggle when clicked by mistake.\n');
    const ask = (sentenceScore: number) => {
      const evidence = new Map([[top, judged(0.6, 3)], [paraphrased, judged(0.3, 1)]]);
      return extractiveAnswer([top, paraphrased], [...unitsOf(top, 0.6), ...unitsOf(paraphrased, sentenceScore)], evidence, SETTINGS).citations.map((c) => c.path);
    };
    assert.deepEqual(ask(0.55), ['Note1.md', 'Note2.md'], 'its sentence scores 0.55 against the chosen 0.6: quoted');
    assert.deepEqual(ask(0.3), ['Note1.md'], 'its sentence scores half the chosen one: left out');
  });

  it('still says the notes do not answer when nothing looks relevant', () => {
    const top = source(1, 'Sport', 'The football emoji is :soccer: and the cup is :trophy:.\n');
    const evidence = new Map([[top, judged(0.45, 1)]]);
    const answer = extractiveAnswer([top], unitsOf(top, 0.45), evidence, SETTINGS);
    assert.equal(answer.confident, false);
    assert.ok(answer.answer.startsWith(NOT_ANSWERED), answer.answer);
  });

  it('cites a quote under its own heading when its section was merged into a longer one, and quotes the same words once', () => {
    const text = 'Renewing is done online in a few minutes.\n\n## Counter\n\nThe counter takes the old permit and a photo.\n';
    const merged = source(1, 'Online', text, [
      { headerPath: ['Online'], startLine: 1, anchor: 'online' },
      { headerPath: ['Counter'], startLine: 3, anchor: 'counter' },
    ]);
    const copy = source(2, 'Copy', 'Renewing is done online in a few minutes.\n');
    const evidence = new Map([[merged, judged(0.8, 5)], [copy, judged(0.8, 5)]]);
    const answer = extractiveAnswer([merged, copy], [...unitsOf(merged, 0.8), ...unitsOf(copy, 0.8)], evidence, SETTINGS);
    assert.deepEqual(answer.citations.map((c) => c.headerPath), [['Online'], ['Counter']], answer.answer);
    assert.equal(answer.answer.match(/Renewing is done online/g)?.length, 1, answer.answer);
  });
});
