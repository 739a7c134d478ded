import { Type, type Static } from 'typebox';

export const RowError = Type.Object(
  {
    line: Type.Integer({ minimum: 1, description: 'the physical line of the file where the row starts (the header is line 1)' }),
    message: Type.String({ description: 'what is wrong, column by column' }),
  },
  { additionalProperties: false, title: 'ImportRowError' },
);
export type RowError = Static<typeof RowError>;

export const ImportResult = Type.Object(
  {
    created: Type.Integer({ minimum: 0, description: 'clients created (creationMethod `import`)' }),
    skipped: Type.Integer({ minimum: 0, description: 'rows whose email already existed in the workspace, or came earlier in the file' }),
    errors: Type.Array(RowError, { description: 'each refused row, in file order; at most 1,000' }),
    truncatedErrors: Type.Optional(Type.Literal(true, { description: 'more rows were refused than `errors` lists' })),
  },
  { additionalProperties: false, title: 'ClientImportResult' },
);
export type ImportResult = Static<typeof ImportResult>;
