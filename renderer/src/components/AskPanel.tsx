// Ask mode. The answer engine (core/answer) is not part of CairnApi yet: this panel keeps its place in the layout
// and says so honestly, and the passages that match the question are listed below it.
import type { ReactNode } from 'react';

interface AskPanelProps {
  question: string;
  /** The passages retrieved for the question (the result list). */
  children: ReactNode;
}

export function AskPanel({ question, children }: AskPanelProps) {
  return (
    <section className="ask-panel" data-testid="ask-panel" aria-label="Answer">
      <header className="ask-question">
        <span className="label">Question</span>
        <p>{question}</p>
      </header>
      <div className="answer-slot" data-testid="answer-slot">
        <p className="muted">Written answers are not available in this version of Cairn yet. These are the passages of your notes that match the question:</p>
      </div>
      {children}
    </section>
  );
}
