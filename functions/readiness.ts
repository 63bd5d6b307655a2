/** What readiness asks of the process beyond the database: whether it is draining, and whether the pipeline has a driver. */
export interface Readiness {
  /** Shutdown has begun: the process finishes what it holds and should be sent nothing new. */
  draining(): boolean;
  /** The embedded executor is running (unless this process is told not to run one), or Inngest Cloud calls in. */
  pipeline(): { driver: string; ready: boolean };
}
