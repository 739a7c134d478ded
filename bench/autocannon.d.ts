// Minimal types for the part of autocannon 9 the bench uses (the package ships none, and
// @types/autocannon is not a dependency).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      /** Called before each request is sent; returns the request to send. */
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    }

    interface Options {
      url: string;
      connections?: number;
      pipelining?: number;
      /** Seconds. */
      duration?: number;
      /** Seconds before a request counts as a timeout. */
      timeout?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
    }

    /** Percentiles are keyed p50, p90, p99, …; latency values are in milliseconds. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      duration: number;
      requests: Histogram;
      latency: Histogram & { totalCount: number };
      throughput: Histogram;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }

  /** Without a callback it returns an EventEmitter that is also a thenable of the result. */
  function autocannon(options: autocannon.Options): PromiseLike<autocannon.Result>;

  export = autocannon;
}
