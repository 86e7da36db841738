/**
 * An OpenAI-compatible chat-completions endpoint (Ollama, LM Studio, llama.cpp server, OpenAI) as an AnswerModel:
 * one streamed POST to <base_url>/chat/completions, read as server-sent events.
 *
 * Every failure becomes an AnswerModelError that says what happened (unreachable, silent for too long, HTTP
 * status with the server's own message, malformed reply), so the caller can show it and fall back. The API key
 * goes only into the Authorization header and is blanked out of every message.
 */
import { sseData } from './sseEvents.js';
import { AnswerModelError, type AnswerModel, type ChatMessage } from './types.js';

export interface ChatCompletionsOptions {
  baseUrl: string;
  /** Empty: no `model` field (servers that serve one model). */
  model: string;
  apiKey?: string;
  /** Longest silence allowed: before the response, and between any two pieces of it. */
  timeoutMs: number;
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the server running?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: 'host unreachable',
  ETIMEDOUT: 'the connection timed out',
};
const MAX_DETAIL_CHARS = 300;

export class ChatCompletionsModel implements AnswerModel {
  readonly description: string;
  private readonly endpoint: string;

  constructor(private readonly options: ChatCompletionsOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl.trim());
    } catch {
      throw new AnswerModelError(`[llm] base_url is not a URL: "${options.baseUrl}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AnswerModelError(`[llm] base_url must start with http:// or https://, got "${url.protocol}"`);
    if (!url.pathname.endsWith('/chat/completions')) url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
    this.endpoint = url.href;
    // Credentials in the URL never show up in messages.
    url.username = '';
    url.password = '';
    this.description = `${options.model || 'the model'} at ${url.href}`;
  }

  async *stream(messages: ChatMessage[], signal?: AbortSignal): AsyncGenerator<string> {
    const controller = new AbortController();
    let timedOut = false;
    let received = false;
    let timer: NodeJS.Timeout | undefined;
    const pause = () => clearTimeout(timer);
    const arm = () => {
      pause();
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, this.options.timeoutMs);
    };
    const cancel = () => controller.abort();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      arm();
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'text/event-stream, application/json',
          ...(this.options.apiKey ? { Authorization: `Bearer ${this.options.apiKey}` } : {}),
        },
        body: JSON.stringify({ ...(this.options.model ? { model: this.options.model } : {}), messages, stream: true }),
        signal: controller.signal,
      });
      arm();
      if (!response.ok) throw new AnswerModelError(this.redact(await this.httpError(response)));
      if (!response.body) throw new AnswerModelError(`${this.description} sent an empty response`);
      // The silence timer restarts with every network chunk, and stops while the caller handles a token.
      const body = response.body;
      const chunks = (async function* () {
        for await (const chunk of body) {
          arm();
          yield chunk;
        }
      })();
      if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
        // A server that ignores `stream: true` answers with one JSON object.
        const text = await collect(chunks);
        const piece = this.pieceOf(text);
        received = piece !== '';
        pause();
        if (piece) yield piece;
      } else {
        for await (const data of sseData(chunks)) {
          if (data.trim() === '[DONE]') break;
          const piece = this.pieceOf(data);
          if (!piece) continue;
          received = true;
          pause();
          yield piece;
          arm();
        }
      }
      if (!received) throw new AnswerModelError(`${this.description} sent a reply without any text`);
    } catch (error) {
      if (error instanceof AnswerModelError) throw error;
      throw new AnswerModelError(this.redact(this.describeFailure(error, signal, timedOut, received)), { cause: error });
    } finally {
      pause();
      signal?.removeEventListener('abort', cancel);
      // Ends the request if the loop stopped early ([DONE] before the server closed, or the caller gave up).
      controller.abort();
    }
  }

  /** The text piece of one streamed event (or of a whole JSON reply); a reported error throws. */
  private pieceOf(data: string): string {
    let event: { error?: unknown; choices?: Array<{ delta?: { content?: unknown }; message?: { content?: unknown }; text?: unknown }> };
    try {
      event = JSON.parse(data);
    } catch {
      throw new AnswerModelError(this.redact(`${this.description} sent something that is not a chat-completions reply: ${clip(data)}`));
    }
    if (event.error) throw new AnswerModelError(this.redact(`${this.description} reported an error: ${errorText(event.error)}`));
    const choice = event.choices?.[0];
    const content = choice?.delta?.content ?? choice?.message?.content ?? choice?.text;
    return typeof content === 'string' ? content : '';
  }

  private async httpError(response: Response): Promise<string> {
    let detail = '';
    try {
      const text = await response.text();
      try {
        const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
        detail = errorText(parsed.error ?? parsed.message ?? text);
      } catch {
        detail = text;
      }
    } catch {
      // The status says enough when the body cannot be read.
    }
    const hint =
      response.status === 401 || response.status === 403
        ? ' (check the API key in the environment variable named by [llm] api_key_env)'
        : response.status === 404
          ? ' (check [llm] base_url and model)'
          : '';
    return `${this.description} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${detail.trim() ? `: ${clip(detail)}` : ''}${hint}`;
  }

  private describeFailure(error: unknown, signal: AbortSignal | undefined, timedOut: boolean, received: boolean): string {
    const seconds = this.options.timeoutMs / 1000;
    if (timedOut) return received ? `${this.description} stopped sending for ${seconds} s` : `no reply from ${this.description} within ${seconds} s`;
    if (signal?.aborted) return 'the question was cancelled';
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code) return `cannot reach ${this.description}: ${NETWORK_REASONS[code] ?? code}`;
    return `the request to ${this.description} failed: ${error instanceof Error ? error.message : String(error)}`;
  }

  private redact(message: string): string {
    const key = this.options.apiKey;
    return key ? message.split(key).join('***') : message;
  }
}

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'message' in error && typeof error.message === 'string') return error.message;
  return JSON.stringify(error);
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_DETAIL_CHARS ? `${flat.slice(0, MAX_DETAIL_CHARS - 1)}…` : flat;
}
