/** Talking to the Lectern backend: streamed answers over SSE, and feedback. */

import { SSEParser } from "./sse";
import type { Citation } from "./storage";

export interface ChatRequest {
  query: string;
  selected_text?: string;
  surrounding_text?: string;
  lesson_id?: string;
  conversation_history: { role: "user" | "assistant"; content: string }[];
  conversation_id?: string;
  book?: string;
}

export interface StreamHandlers {
  text(delta: string): void;
  replace(text: string): void;
  source(citation: Citation): void;
  confidence(status: string, confidence: string, reviewed: boolean): void;
  done(conversationId: string, messageId: string): void;
}

export class ChatError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export function friendlyError(status: number, detail: string | undefined, retryAfter: string | null): string {
  if (status === 400) return detail || "That question could not be sent. Please rephrase it.";
  if (status === 429) {
    const seconds = Number(retryAfter);
    return Number.isFinite(seconds) && seconds > 0
      ? `Too many questions in a short time. Please try again in ${seconds} seconds.`
      : "Too many questions in a short time. Please wait a little and try again.";
  }
  if (status === 503) return detail || "The assistant is temporarily unavailable. Please try again in a minute.";
  if (status === 0) return "You appear to be offline. Check your connection and try again.";
  return detail || "Something went wrong. Please try again.";
}

export async function streamChat(
  apiUrl: string,
  sessionId: string,
  body: ChatRequest,
  handlers: StreamHandlers,
  signal: AbortSignal,
  readerToken?: string,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/api/chat/stream`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json", Accept: "text/event-stream", "X-Session-Id": sessionId,
        ...(readerToken ? { "X-Reader-Token": readerToken } : {}),
      },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    throw new ChatError(friendlyError(0, undefined, null), 0);
  }
  if (!response.ok || !response.body) {
    let detail: string | undefined;
    try {
      detail = (await response.json()).detail;
    } catch {
      detail = undefined;
    }
    throw new ChatError(friendlyError(response.status, detail, response.headers.get("Retry-After")), response.status);
  }
  const parser = new SSEParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const event of parser.feed(value)) {
      const data = JSON.parse(event.data);
      if (event.event === "text") handlers.text(data.delta);
      else if (event.event === "replace") handlers.replace(data.text);
      else if (event.event === "source") handlers.source(data as Citation);
      else if (event.event === "confidence") handlers.confidence(data.status, data.confidence, data.reviewed === true);
      else if (event.event === "done") handlers.done(data.conversation_id, data.message_id);
      else if (event.event === "error") throw new ChatError(friendlyError(data.code, data.message, null), data.code);
    }
  }
}

/** A vote on an answer, with the reader's comment when there is one (voting again replaces it). */
export async function sendFeedback(
  apiUrl: string, sessionId: string, messageId: string, helpful: boolean, comment?: string,
): Promise<boolean> {
  try {
    const response = await fetch(`${apiUrl}/api/feedback`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Session-Id": sessionId },
      body: JSON.stringify({ message_id: messageId, helpful, ...(comment ? { comment } : {}) }),
    });
    return response.ok;
  } catch {
    return false;
  }
}
