/** The contract's limits (§6): GET 20 at 100/s, others 5 at 20/s (the harness otherwise makes them roomy). */
export const CONTRACT_LIMITS = {
  RATE_LIMIT_GET_CAPACITY: '20',
  RATE_LIMIT_GET_REFILL: '100',
  RATE_LIMIT_WRITE_CAPACITY: '5',
  RATE_LIMIT_WRITE_REFILL: '20',
};

/** Every limit header of a response (and Retry-After), those present only, as strings. */
export function limitHeaders(res: { headers: Record<string, unknown> }): Record<string, string> {
  const pick = [
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-service-quota-limit',
    'x-service-quota-remaining',
    'x-service-quota-reset',
    'retry-after',
  ];
  return Object.fromEntries(pick.filter((h) => res.headers[h] !== undefined).map((h) => [h, String(res.headers[h])]));
}

/** [X-RateLimit-Remaining, X-Service-Quota-Remaining] of a response. */
export const remainingOf = (res: { headers: Record<string, unknown> }) => [
  String(res.headers['x-ratelimit-remaining']),
  String(res.headers['x-service-quota-remaining']),
];
