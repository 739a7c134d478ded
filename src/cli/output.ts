/** `--json`: exactly one JSON object on stdout; otherwise a short human summary. */
export function printResult(json: boolean, result: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${human}\n`);
}

export class UsageError extends Error {}

export function requireOption(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.length === 0) throw new UsageError(`--${name} is required`);
  return value;
}
