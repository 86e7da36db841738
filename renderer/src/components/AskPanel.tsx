// Ask mode: the question, its answer (streaming in while a language model writes it, then the checked text with
// each [n] marker a link to the cited lines), the numbered sources, and every notice the answer carries: the
// model failed and the answer is quoted instead, markers dropped, or the notes do not answer at all.
import { Fragment, type ReactNode } from 'react';
import type { AskResponse, ChunkSummary, Citation, SnippetSegment } from '../../../core/contract/appApi.ts';
import { parseAnswer, passageLabel, type Inline } from '../answer/answerText.ts';
import type { AskState } from '../hooks/useAsk.ts';
import { lineRange } from '../format.ts';
import type { NoteTarget } from './NoteView.tsx';
import { SameTextCopies } from './SameTextCopies.tsx';

/** A passage of a note that can be opened at its lines: a citation, or a retrieved source. */
export type Passage = Pick<ChunkSummary, 'chunkId' | 'path' | 'title' | 'headerPath' | 'startLine' | 'endLine'>;

interface AskPanelProps {
  state: AskState;
  /** The note open beside the answer: the passage it shows is marked. */
  openTarget: NoteTarget | null;
  onOpen(passage: Passage): void;
  onRetry(): void;
}

/** Passages listed when the notes do not answer. */
const CLOSEST = 3;

export function AskPanel({ state, openTarget, onOpen, onRetry }: AskPanelProps) {
  const isOpen = (p: Passage) => openTarget?.path === p.path && openTarget.citation?.startLine === p.startLine && openTarget.citation.endLine === p.endLine;
  const { status, answer } = state;
  const busy = status === 'asking' || status === 'streaming';
  return (
    <section className="ask-panel" data-testid="ask-panel" data-status={status} aria-label="Answer">
      <header className="ask-question">
        <span className="label">Question</span>
        <p>{state.question}</p>
      </header>
      <article className="answer-card" data-testid="answer" aria-live="polite" aria-busy={busy}>
        {status === 'asking' && (
          <p className="answer-progress muted" data-testid="answer-progress">
            <span className="spinner inline" aria-hidden="true" /> Finding the passages that answer it…
          </p>
        )}
        {status === 'streaming' && (
          <>
            <div className="answer-text streaming" data-testid="answer-streaming">
              <AnswerText text={state.streamed} citations={[]} caret />
            </div>
            <p className="answer-meta muted small">The language model is writing…</p>
          </>
        )}
        {status === 'failed' && (
          <div className="banner danger answer-error" role="alert" data-testid="answer-error">
            <span>Cairn could not answer: {state.error}</span>
            <button type="button" onClick={onRetry}>
              Try again
            </button>
          </div>
        )}
        {status === 'done' && answer && <FinalAnswer answer={answer} isOpen={isOpen} onOpen={onOpen} />}
      </article>
      {status === 'done' && answer?.confident && answer.citations.length > 0 && (
        <section className="answer-sources" data-testid="answer-sources" aria-label="Sources">
          <h3>Sources</h3>
          <ol>
            {[...answer.citations]
              .sort((a, b) => a.n - b.n)
              .map((citation) => (
                <li key={citation.n}>
                  <PassageButton passage={citation} n={citation.n} open={isOpen(citation)} onOpen={onOpen} testId="answer-source" />
                  {citation.sameText?.length ? <SameTextCopies copies={citation.sameText} testId="answer-source-same-text" onOpen={onOpen} /> : null}
                </li>
              ))}
          </ol>
        </section>
      )}
    </section>
  );
}

function FinalAnswer({ answer, isOpen, onOpen }: { answer: AskResponse; isOpen(p: Passage): boolean; onOpen(p: Passage): void }) {
  const dropped = answer.droppedCitations ?? [];
  return (
    <>
      {(answer.fallback || answer.llmError) && (
        <div className="banner warning" role="status" data-testid="answer-notice">
          The language model could not answer ({answer.llmError ?? 'no reason given'}); this answer is quoted from your notes.
        </div>
      )}
      {answer.confident ? (
        <div className="answer-text" data-testid="answer-text">
          <AnswerText text={answer.answer} citations={answer.citations} isOpen={isOpen} onOpen={onOpen} />
        </div>
      ) : (
        <NotAnswered answer={answer} isOpen={isOpen} onOpen={onOpen} />
      )}
      {dropped.length > 0 && (
        <p className="answer-meta muted small" data-testid="dropped-citations">
          The model also cited {dropped.map((n) => `[${n}]`).join(', ')}, which {dropped.length === 1 ? 'names' : 'name'} no source: removed from the answer.
        </p>
      )}
      {answer.mode === 'llm' ? (
        <p className="answer-meta muted small" data-testid="answer-mode">
          Written by the language model from {answer.sources.length} passage{answer.sources.length === 1 ? '' : 's'} of your notes.
        </p>
      ) : (
        answer.confident && (
          <p className="answer-meta muted small" data-testid="answer-mode">
            Quoted from your notes.
          </p>
        )
      )}
    </>
  );
}

/** The plain "no answer" reply, then the passages that came closest (the model's own words, if it wrote any). */
function NotAnswered({ answer, isOpen, onOpen }: { answer: AskResponse; isOpen(p: Passage): boolean; onOpen(p: Passage): void }) {
  // Extractive: the citations are the closest passages, each with its best sentence. A model that found no answer
  // cited nothing: the best retrieved passages stand in.
  const closest: Array<{ n: number; passage: Passage; snippet: SnippetSegment[] }> = answer.citations.length
    ? answer.citations.map((c) => ({ n: c.n, passage: c, snippet: c.snippet }))
    : answer.sources.slice(0, CLOSEST).map((s, i) => ({ n: i + 1, passage: s, snippet: s.snippet }));
  return (
    <div className="not-answered" data-testid="not-answered">
      <p className="not-answered-message">Your notes don’t seem to answer this.</p>
      {answer.mode === 'llm' && answer.answer.trim() && (
        <blockquote className="model-reply" data-testid="model-reply">
          <AnswerText text={answer.answer} citations={[]} />
        </blockquote>
      )}
      {closest.length > 0 ? (
        <>
          <p className="muted small closest-intro">The closest passages:</p>
          <ol className="closest-passages">
            {closest.map(({ n, passage, snippet }) => (
              <li key={n}>
                <PassageButton passage={passage} n={n} open={isOpen(passage)} onOpen={onOpen} testId="closest-passage">
                  {snippet.some((segment) => segment.text) && <Snippet segments={snippet} />}
                </PassageButton>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p className="muted small">No passage of your notes matches it.</p>
      )}
    </div>
  );
}

function PassageButton({ passage, n, open, onOpen, testId, children }: { passage: Passage; n: number; open: boolean; onOpen(p: Passage): void; testId: string; children?: ReactNode }) {
  return (
    <button type="button" className={`passage${open ? ' open' : ''}`} data-testid={testId} data-n={n} title={passage.path} onClick={() => onOpen(passage)}>
      <span className="passage-n">{n}</span>
      <span className="passage-body">
        <span className="passage-label">{passageLabel(passage)}</span>
        <span className="passage-meta">
          <span className="path">{passage.path}</span>
          <span>{lineRange(passage.startLine, passage.endLine)}</span>
        </span>
        {children}
      </span>
    </button>
  );
}

/** A passage's best words with the question's terms marked, as the core cut them (inside a button: phrasing content only). */
function Snippet({ segments }: { segments: readonly SnippetSegment[] }) {
  return (
    <span className="snippet passage-snippet">
      {segments.map((segment, i) => (segment.match ? <mark key={i}>{segment.text}</mark> : <Fragment key={i}>{segment.text}</Fragment>))}
    </span>
  );
}

interface AnswerTextProps {
  text: string;
  /** The checked citations: their markers become links. While a model writes, there are none yet. */
  citations: Citation[];
  isOpen?(p: Passage): boolean;
  onOpen?(p: Passage): void;
  /** A blinking caret after the text (it is still being written). */
  caret?: boolean;
}

function AnswerText({ text, citations, isOpen, onOpen, caret }: AnswerTextProps) {
  const blocks = parseAnswer(text);
  const inline = (inlines: Inline[]) =>
    inlines.map((piece, i) => {
      switch (piece.kind) {
        case 'text':
          return <Fragment key={i}>{piece.text}</Fragment>;
        case 'code':
          return <code key={i}>{piece.text}</code>;
        case 'strong':
          return <strong key={i}>{piece.text}</strong>;
        case 'em':
          return <em key={i}>{piece.text}</em>;
        case 'marker': {
          const citation = citations.find((c) => c.n === piece.n);
          if (!citation || !onOpen) {
            return (
              <span key={i} className="cite-marker pending">
                {piece.n}
              </span>
            );
          }
          const where = `${passageLabel(citation)}, ${lineRange(citation.startLine, citation.endLine)}`;
          return (
            <button
              key={i}
              type="button"
              className={`cite-marker${isOpen?.(citation) ? ' active' : ''}`}
              data-testid="citation-marker"
              data-n={piece.n}
              title={where}
              aria-label={`Source ${piece.n}: ${where}`}
              onClick={() => onOpen(citation)}
            >
              {piece.n}
            </button>
          );
        }
      }
    });
  // The caret follows the last character written: the end of the last block.
  const caretAfter = (i: number) => (caret && i === blocks.length - 1 ? <span className="caret" aria-hidden="true" /> : null);
  if (blocks.length === 0) return caret ? <p>{<span className="caret" aria-hidden="true" />}</p> : null;
  return (
    <>
      {blocks.map((block, i) => {
        if (block.kind === 'paragraph') {
          return (
            <p key={i}>
              {inline(block.inlines)}
              {caretAfter(i)}
            </p>
          );
        }
        const List = block.ordered ? 'ol' : 'ul';
        return (
          <List key={i}>
            {block.items.map((item, j) => (
              <li key={j}>
                {inline(item)}
                {j === block.items.length - 1 && caretAfter(i)}
              </li>
            ))}
          </List>
        );
      })}
    </>
  );
}
