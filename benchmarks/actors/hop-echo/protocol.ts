export interface HopEchoApi {
  /** Answers a whole batch of requests in one message. */
  answerBatch(paths: string[]): Promise<string[]>;
}
