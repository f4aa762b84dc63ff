// The part of autocannon's API the bench uses: autocannon 8 ships no types.
declare module 'autocannon' {
  /** A request as autocannon is about to send it. */
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  /** One entry of a request list: a request, or one built by `setupRequest`. */
  export interface RequestSpec extends Request {
    setupRequest?: (request: Request, context: object) => Request;
    onResponse?: (status: number, body: string, context: object) => void;
  }

  /** What a run is asked to do. */
  export interface Options {
    url: string;
    duration?: number;
    connections?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    timeout?: number;
    method?: string;
    body?: string;
    requests?: RequestSpec[];
    overallRate?: number;
  }

  /** Latency (ms) or rate figures of a run. */
  export interface Histogram {
    average: number;
    total: number;
    p50: number;
    p99: number;
  }

  /** What a run measured. */
  export interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }

  /** Runs a load; resolves when it is over. */
  export default function autocannon(options: Options): Promise<Result>;
}
