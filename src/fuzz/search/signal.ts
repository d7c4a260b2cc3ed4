/** Wakes one waiter; a notify with nobody waiting is remembered (no lost wake-ups). */
export class Signal {
  private pending = false;
  private waiter: (() => void) | null = null;

  notify(): void {
    const w = this.waiter;
    if (w) {
      this.waiter = null;
      w();
    } else {
      this.pending = true;
    }
  }

  wait(): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}
