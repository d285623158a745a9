// The part of autocannon's API the benchmarks use; the package ships no types.
declare module 'autocannon' {
  export interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    workers?: number;
    timeout?: number;
  }

  export interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
    /** For `requests`: the completed requests of the run. */
    total: number;
  }

  export interface Result {
    requests: Histogram;
    latency: Histogram;
    non2xx: number;
    errors: number;
    timeouts: number;
  }

  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
