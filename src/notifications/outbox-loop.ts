import type { Logger } from '../logger.js';

/**
 * The loop an outbox worker runs: a round claims and handles a batch; a full batch goes again at
 * once, anything less sleeps `pollMs` unless `wake()` (a commit's NOTIFY) interrupts the sleep.
 */
export abstract class OutboxLoop {
  protected stopping = false;
  private loop?: Promise<void>;
  private woken = false;
  private interruptSleep?: () => void;

  constructor(private readonly pace: { pollMs: number; batchSize: number; logger: Logger; name: string }) {}

  /** One round: claim a batch and handle it. Returns how many rows were claimed. */
  abstract deliverDue(): Promise<number>;

  start(): void {
    this.loop ??= this.run();
  }

  /** Look for due rows now instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.interruptSleep?.();
  }

  /** Finishes what is being sent, hands back the rest of the batch, and stops. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      let claimed = 0;
      try {
        claimed = await this.deliverDue();
      } catch (error) {
        this.pace.logger.error({ err: error }, `${this.pace.name} round failed; retrying at the next poll`);
      }
      if (claimed < this.pace.batchSize) await this.sleep(this.pace.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.interruptSleep = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.interruptSleep = done;
    });
  }
}
