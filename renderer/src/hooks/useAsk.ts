// One question at a time: ask() with a fresh request id, the model's tokens (answer-token events with that id)
// appended as they arrive, then the checked answer. A newer question, or leaving Ask mode, makes the older one's
// tokens and answer irrelevant: they are dropped when they come.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AppEvent, AskResponse } from '../../../core/contract/appApi.ts';
import { useApi } from '../api/ApiContext.tsx';

export type AskStatus = 'asking' | 'streaming' | 'done' | 'failed';

export interface AskState {
  requestId: string;
  question: string;
  status: AskStatus;
  /** The model's answer so far, as it is written (before its citations are checked). */
  streamed: string;
  answer: AskResponse | null;
  error: string | null;
}

/** 128 random bits as hex: unguessable enough to tell questions apart, and within the api's id format. */
function newRequestId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

export function useAsk(): { state: AskState | null; ask(question: string): void; reset(): void } {
  const { api } = useApi();
  const [state, setState] = useState<AskState | null>(null);
  const current = useRef<string | null>(null);

  useEffect(
    () =>
      api.subscribe((event: AppEvent) => {
        if (event.type !== 'answer-token' || event.requestId !== current.current) return;
        setState((s) => (s && s.requestId === event.requestId && (s.status === 'asking' || s.status === 'streaming') ? { ...s, status: 'streaming', streamed: s.streamed + event.token } : s));
      }),
    [api],
  );

  const ask = useCallback(
    (question: string) => {
      const requestId = newRequestId();
      current.current = requestId;
      setState({ requestId, question, status: 'asking', streamed: '', answer: null, error: null });
      const settle = (next: Partial<AskState>) => {
        if (current.current === requestId) setState((s) => (s?.requestId === requestId ? { ...s, ...next } : s));
      };
      api.ask({ question, requestId }).then(
        (answer) => settle({ status: 'done', answer }),
        (error: unknown) => settle({ status: 'failed', error: error instanceof Error ? error.message : String(error) }),
      );
    },
    [api],
  );

  const reset = useCallback(() => {
    current.current = null;
    setState(null);
  }, []);

  return { state, ask, reset };
}
