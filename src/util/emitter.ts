// A typed event stream: listeners in subscription order, called synchronously. Holds no events:
// a listener sees only what is emitted after it subscribed.

export class Emitter<E> {
  private readonly listeners = new Set<(event: E) => void>();

  /** Subscribes; returns the unsubscribe function. */
  on(listener: (event: E) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: E): void {
    for (const listener of this.listeners) listener(event);
  }
}
