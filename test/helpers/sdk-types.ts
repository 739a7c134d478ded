// The official SDK's declared answers, read from its DefaultService.d.ts with the TypeScript compiler, so a
// test can hold a real answer to the type a typed client expects (issue 23: "asserting each answer against
// the SDK's declared types"). A shape is what a value must be at run time: the declared fields' types, which
// are optional, and where null is allowed.
import { join } from 'node:path';
import ts from 'typescript';

const SERVICE = join(process.cwd(), 'node_modules/@assembly-js/node-sdk/dist/codegen/api/services/DefaultService.d.ts');

type Shape =
  | { readonly kind: 'any' | 'string' | 'number' | 'boolean' | 'null' | 'undefined' }
  | { readonly kind: 'literal'; readonly value: string | number | boolean }
  | { readonly kind: 'array'; readonly items: Shape }
  | { readonly kind: 'object'; readonly properties: Readonly<Record<string, { readonly shape: Shape; readonly optional: boolean }>> }
  | { readonly kind: 'union'; readonly of: readonly Shape[] };

/** Every static method of the SDK's DefaultService, by name, with the shape of what its promise resolves to. */
export function sdkOperations(): Map<string, Shape> {
  const program = ts.createProgram([SERVICE], { strict: true, skipLibCheck: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(SERVICE);
  const service = source?.statements.find(ts.isClassDeclaration);
  if (!source || !service) throw new Error(`no DefaultService class in ${SERVICE}`);

  const shapeOf = (type: ts.Type, depth: number): Shape => {
    if (depth > 12 || type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return { kind: 'any' };
    if (type.isUnion()) return { kind: 'union', of: type.types.map((t) => shapeOf(t, depth + 1)) };
    if (type.isStringLiteral() || type.isNumberLiteral()) return { kind: 'literal', value: type.value as string | number };
    if (type.flags & ts.TypeFlags.BooleanLiteral) return { kind: 'literal', value: checker.typeToString(type) === 'true' };
    if (type.flags & ts.TypeFlags.StringLike) return { kind: 'string' };
    if (type.flags & ts.TypeFlags.NumberLike) return { kind: 'number' };
    if (type.flags & ts.TypeFlags.BooleanLike) return { kind: 'boolean' };
    if (type.flags & ts.TypeFlags.Null) return { kind: 'null' };
    if (type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return { kind: 'undefined' };
    if (checker.isArrayType(type))
      return { kind: 'array', items: shapeOf(checker.getTypeArguments(type as ts.TypeReference)[0], depth + 1) };
    if (type.flags & ts.TypeFlags.Object) {
      // A map (Record<string, T>, an index signature) declares no fields to hold an answer to.
      if (checker.getIndexInfosOfType(type).length > 0) return { kind: 'any' };
      const properties: Record<string, { shape: Shape; optional: boolean }> = {};
      for (const property of checker.getPropertiesOfType(type)) {
        properties[property.name] = {
          shape: shapeOf(checker.getTypeOfSymbolAtLocation(property, service), depth + 1),
          optional: (property.flags & ts.SymbolFlags.Optional) !== 0,
        };
      }
      return { kind: 'object', properties };
    }
    return { kind: 'any' };
  };

  const operations = new Map<string, Shape>();
  for (const member of service.members) {
    if (!ts.isMethodDeclaration(member) || !member.name || !ts.isIdentifier(member.name)) continue;
    const signature = checker.getSignatureFromDeclaration(member);
    if (!signature) continue;
    // CancelablePromise<T>: the answer is T.
    const promise = checker.getReturnTypeOfSignature(signature) as ts.TypeReference;
    const [answer] = checker.getTypeArguments(promise);
    operations.set(member.name.text, answer ? shapeOf(answer, 0) : { kind: 'any' });
  }
  return operations;
}

/**
 * Where `value` departs from `shape`: a declared field of the wrong type, a required one missing, a null
 * the SDK does not declare (except for the fields named in `nullable`, which the specification makes
 * nullable). Fields the SDK does not declare are not judged (a typed client ignores them).
 */
export function departures(value: unknown, shape: Shape, nullable: ReadonlySet<string>, path = '$'): string[] {
  const problems: string[] = [];
  const field = path.slice(path.lastIndexOf('.') + 1);
  const check = (v: unknown, s: Shape, p: string) => {
    problems.push(...departures(v, s, nullable, p));
  };
  if (value === null && nullable.has(field)) return problems;
  switch (shape.kind) {
    case 'any':
      break;
    case 'string':
    case 'number':
    case 'boolean':
      if (typeof value !== shape.kind) problems.push(`${path}: ${JSON.stringify(value)} is not a ${shape.kind}`);
      break;
    case 'null':
    case 'undefined':
      if (value !== (shape.kind === 'null' ? null : undefined)) problems.push(`${path}: ${JSON.stringify(value)} is not ${shape.kind}`);
      break;
    case 'literal':
      if (value !== shape.value) problems.push(`${path}: ${JSON.stringify(value)} is not ${JSON.stringify(shape.value)}`);
      break;
    case 'array':
      if (!Array.isArray(value)) problems.push(`${path}: ${JSON.stringify(value)} is not an array`);
      else for (const [i, item] of value.entries()) check(item, shape.items, `${path}[${i}]`);
      break;
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) {
        problems.push(`${path}: ${JSON.stringify(value)} is not an object`);
        break;
      }
      for (const [key, declared] of Object.entries(shape.properties)) {
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined) {
          if (!declared.optional) problems.push(`${path}.${key}: missing`);
        } else check(v, declared.shape, `${path}.${key}`);
      }
      break;
    }
    case 'union':
      if (!shape.of.some((s) => departures(value, s, nullable, path).length === 0)) {
        problems.push(`${path}: ${JSON.stringify(value)?.slice(0, 200)} matches none of its declared types`);
      }
      break;
  }
  return problems;
}
