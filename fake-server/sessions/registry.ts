/**
 * The sessions of an app (stage 1), each made the first time a request names it, so parallel tests
 * isolate themselves by naming one; bounded by `maxSessions`.
 */
import { DEFAULT_SESSION } from "./session-name.ts";
import { Session, type SharedContext } from "./session.ts";

/**
 * Every session of an app, made on first use. At most `maxSessions` are kept: past that, the
 * least recently used one other than "default" goes, so a long-running fake that sees a new
 * session name per test stays bounded.
 */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private clock = 0;
  readonly defaultSession: Session;

  constructor(
    private readonly shared: SharedContext,
    private readonly newId: () => string,
    private readonly maxSessions: number,
  ) {
    this.defaultSession = new Session(DEFAULT_SESSION, shared, newId);
    this.sessions.set(DEFAULT_SESSION, this.defaultSession);
  }

  /** The session of that name, made empty when it does not exist yet. */
  get(name: string): Session {
    let session = this.sessions.get(name);
    if (session === undefined) {
      if (this.sessions.size >= this.maxSessions) this.evictLeastRecentlyUsed();
      session = new Session(name, this.shared, this.newId);
      this.sessions.set(name, session);
    }
    session.lastUsed = ++this.clock;
    return session;
  }

  /** The session of that name if it exists; never makes one. */
  find(name: string): Session | undefined {
    return this.sessions.get(name);
  }

  all(): IterableIterator<Session> {
    return this.sessions.values();
  }

  /** Empties one session, or every one (and forgets all but "default"). */
  reset(name?: string): void {
    if (name !== undefined) {
      this.sessions.get(name)?.clear();
      return;
    }
    for (const session of this.sessions.values()) session.clear();
    this.sessions.clear();
    this.sessions.set(DEFAULT_SESSION, this.defaultSession);
  }

  private evictLeastRecentlyUsed(): void {
    let oldest: Session | undefined;
    for (const session of this.sessions.values()) {
      if (session !== this.defaultSession && (oldest === undefined || session.lastUsed < oldest.lastUsed))
        oldest = session;
    }
    if (oldest !== undefined) this.sessions.delete(oldest.name);
  }
}
