/**
 * The shape of `chatApp`, the object app-page.js puts on the page, for the tests that call it.
 */

export interface StreamEvent {
  /** The `event:` line's name. */
  event: string;
  data: {
    type: string;
    delta?: string;
    response?: { conversation_id: string; output_text: string; citations: unknown[] };
  };
  /** The reader chunk (1-based) in which the event's closing blank line arrived. */
  chunk: number;
}

export interface Conversation {
  created: {
    status: number;
    contentType: string | null;
    replayed: string | null;
    body: { conversation_id: string; response: string; citations: unknown[] };
  };
  stream: { status: number; contentType: string | null; chunks: number; events: StreamEvent[]; unfinished: string };
  replay: { status: number; replayed: string | null; body: unknown };
  listed: {
    status: number;
    body: {
      conversation: { id: string };
      items: unknown[];
      page: number;
      page_size: number;
      total: number;
      has_more: boolean;
    };
  };
  deleted: { status: number; text: string };
  deletedAgain: { status: number; body: unknown };
  refused: { status: number; wwwAuthenticate: string | null; body: unknown };
}

export type CreateOutcome = { status: number; body: unknown } | { error: string };

export interface LoggedRequest {
  session: string;
  method: string;
  path: string;
  status: number;
}

export interface ChatApp {
  converse(fakeUrl: string, session: string | null, run: string): Promise<Conversation>;
  createOnce(fakeUrl: string, session: string | null, idempotencyKey: string): Promise<CreateOutcome>;
  requestLog(fakeOrigin: string, session: string): Promise<{ status: number; requests: LoggedRequest[] }>;
}
