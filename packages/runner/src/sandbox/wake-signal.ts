/** Lets the run loop sleep until a host call settles, or until its deadline. */
export class WakeSignal {
  private wake: (() => void) | null = null;
  private pendingWake = false;

  notify(): void {
    if (this.wake) this.wake();
    else this.pendingWake = true;
  }

  /** Resolves true when notified, false when `ms` pass first. */
  wait(ms: number): Promise<boolean> {
    if (this.pendingWake) {
      this.pendingWake = false;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), Math.max(0, ms));
      const finish = (woken: boolean): void => {
        clearTimeout(timer);
        this.wake = null;
        resolve(woken);
      };
      this.wake = () => finish(true);
    });
  }
}
