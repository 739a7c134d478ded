/** `--json`: exactly one JSON object on stdout; otherwise a short human summary. */
export function printResult(json: boolean, result: Record<string, unknown>, human: string): void {
  process.stdout.write(json ? `${JSON.stringify(result)}\n` : `${human}\n`);
}
