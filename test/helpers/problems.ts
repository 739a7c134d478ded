// The one check of a 400 answer's problems (`{ code: 'bad_request', message, data: [{ path, message }] }`).
import assert from 'node:assert/strict';

interface Answer {
  statusCode: number;
  body: string;
  json(): any;
}

/**
 * A 400 `bad_request` naming exactly these problems, in order: their paths (`['/name', '/dueDate']`), or whole
 * entries (`[{ path, message }]`) where the message is part of the rule.
 */
export function assertProblems(res: Answer, expected: string[] | { path: string; message: string }[]) {
  assert.equal(res.statusCode, 400, res.body);
  const body = res.json();
  assert.equal(body.code, 'bad_request', res.body);
  if (expected.every((entry) => typeof entry === 'string')) {
    assert.deepEqual(
      (body.data as { path: string }[]).map((problem) => problem.path),
      expected,
      res.body,
    );
  } else {
    assert.deepEqual(body.data, expected, res.body);
  }
}
