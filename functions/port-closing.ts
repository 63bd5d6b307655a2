/** A quiet moment: no connection accepted for this long, seen right after the event loop polled for new ones. */
const QUIET_MS = 100;
/** The longest answers are held while waiting for a quiet moment; past it the port closes anyway. */
const MAX_HOLD_MS = 1_000;
/** How often the quiet is looked for. */
const CHECK_MS = 10;

/**
 * Closes a listening port without resetting the connections waiting in the kernel's accept queue.
 * Closing a listening socket resets every connection the kernel completed and the process has
 * not yet accepted (Linux; Node 20 cannot stop the kernel completing handshakes while it drains
 * that queue), and a client that still sends has one there whenever it is between an answer and
 * its next request. So from `close()` on, answers are held: every such client ends up waiting on
 * an accepted connection, and nothing new arrives. Once no connection has been accepted for
 * {@link QUIET_MS} — checked just after the event loop has polled, so the queue was just
 * emptied — the port closes, and the held answers go out; a client that connects after that is
 * refused, which tells it that its request was never sent.
 *
 * @example
 * const closing = new PortClosing();
 * server.on("connection", () => closing.accepted());
 * // in the request handler, before answering:
 * await closing.closed();
 * // at shutdown:
 * await closing.close(() => server.close());
 */
export class PortClosing {
  private lastAccepted = performance.now();
  private holding: Promise<void> | undefined;

  /** Records a connection accepted now. */
  accepted(): void {
    this.lastAccepted = performance.now();
  }

  /** Resolves at once, or once the port has closed while a close is under way. */
  closed(): Promise<void> {
    return this.holding ?? Promise.resolve();
  }

  /** Holds answers, waits for a quiet moment, calls `closePort` there and releases the answers. */
  async close(closePort: () => void): Promise<void> {
    let release: () => void = () => undefined;
    this.holding = new Promise<void>((resolve) => (release = resolve));
    await this.quietMoment();
    // Synchronously after the check: no poll of the event loop between it and the close.
    closePort();
    this.holding = undefined;
    release();
  }

  private quietMoment(): Promise<void> {
    const started = performance.now();
    return new Promise((resolve) => {
      // setImmediate runs right after the loop's poll phase, where pending connections are accepted.
      const check = () =>
        setImmediate(() => {
          const now = performance.now();
          if (now - this.lastAccepted >= QUIET_MS || now - started >= MAX_HOLD_MS) resolve();
          else setTimeout(check, CHECK_MS);
        });
      check();
    });
  }
}
