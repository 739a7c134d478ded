import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { PdfQuery, PdfResponse, pdfHeaders } from '../../../lib/pdf.js';
import type { RoutePolicy } from '../../../lib/policy.js';
import {
  ADMIN_WRITE_ERRORS,
  adminDoc,
  errorResponses,
  IdParams,
  Page,
  READ_ERRORS,
  WorkspaceParams,
  WRITE_ERRORS,
} from '../../../lib/schemas.js';
import {
  CONTRACT_FIELDS_MAX,
  Contract,
  ContractListQuery,
  ContractSend,
  ContractSign,
  ContractTemplate,
  ContractTemplateCreate,
  ContractTemplateListQuery,
} from './contracts.schemas.js';
import * as service from './contracts.service.js';

/** Templates are the staff's: a client session is answered as if they were absent. */
const STAFF_ONLY: RoutePolicy = { clientSession: 'none' };
/** A client session reads the contracts sent to it; sending is the staff's (403). */
const CLIENT_READS: RoutePolicy = { clientSession: 'read' };
/** A client session signs the contracts sent to it. */
const CLIENT_SIGNS: RoutePolicy = { clientSession: 'write' };
const tags = ['contracts'];

const SEES = 'A client session sees the contracts sent to it; an internal user limited to some companies sees those sent in its companies.';

export default async function contractRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, pageTokens } = app.ctx;

  app.get(
    '/contract-templates',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'listContractTemplates',
        summary: 'List contract templates, newest first',
        description: 'Templates are made on the admin surface (or with `portal contract-templates create`). Filter name (exact).',
        querystring: ContractTemplateListQuery,
        response: { 200: Page(ContractTemplate), ...READ_ERRORS },
      },
    },
    async (request) => service.listContractTemplates(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/contract-templates/:id',
    {
      config: { policy: STAFF_ONLY },
      schema: {
        tags,
        operationId: 'retrieveContractTemplate',
        summary: 'Retrieve a contract template',
        description:
          'With its fields and counts (`requestsCount`, `submissionsCount`, `latestSubmissionDate`). Staff only: client sessions get ' +
          'a 404.',
        params: IdParams,
        response: { 200: ContractTemplate, ...READ_ERRORS },
      },
    },
    async (request) => service.getContractTemplate(database, request.caller, request.params.id),
  );
  app.post(
    '/contracts',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'sendContract',
        summary: 'Send a contract to a client: contractRequested',
        description:
          'clientId (or the deprecated recipientId): a client the caller sees; companyId: one of its companies, required when it ' +
          'has several. variableValues (an object, or its JSON text): a value for each variable field of the template that is ' +
          'not optional, and for no other field. The contract keeps the template’s name and fields as sent. Every failing ' +
          'field is named in one 400.',
        body: ContractSend,
        response: { 200: Contract, ...WRITE_ERRORS },
      },
    },
    async (request) => service.sendContract(database, request.caller, request.body),
  );
  app.get(
    '/contracts',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'listContracts',
        summary: 'List contracts, newest first',
        description: `Filters contractTemplateId, clientId (recipientId, deprecated, the same), status; exact matches. ${SEES}`,
        querystring: ContractListQuery,
        response: { 200: Page(Contract), ...READ_ERRORS },
      },
    },
    async (request) => service.listContracts(database, request.caller, request.query, pageTokens),
  );
  app.get(
    '/contracts/:id',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'retrieveContract',
        summary: 'Retrieve a contract',
        description: SEES,
        params: IdParams,
        response: { 200: Contract, ...READ_ERRORS },
      },
    },
    async (request) => service.getContract(database, request.caller, request.params.id),
  );
  app.get(
    '/contracts/:id/pdf',
    {
      config: { policy: CLIENT_READS },
      schema: {
        tags,
        operationId: 'downloadContractPdf',
        summary: 'Download a signed contract as a PDF: contractDownloaded',
        description:
          'Not in the SDK. The signed contract as a document (application/pdf, an attachment named `<name>-<id>.pdf`; inline ' +
          'with `?disposition=inline`, for a preview): the ' +
          'template’s fields with the values the sender and the signer gave, the signer, the time of signing, and the contract’s ' +
          'audit trail (its entries in the audit log, oldest first, at most 500, times in UTC). A contract not signed yet is a 409 ' +
          `(its document is the signed one). Who may read the contract may download it: ${SEES}`,
        params: IdParams,
        querystring: PdfQuery,
        response: { 200: PdfResponse('the signed contract, as a PDF'), ...READ_ERRORS, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const document = await service.contractDocument(database, request.caller, request.params.id);
      return reply.headers(pdfHeaders(document, request.query.disposition)).send(document.stream);
    },
  );
  app.post(
    '/contracts/:id/sign',
    {
      config: { policy: CLIENT_SIGNS },
      schema: {
        tags,
        operationId: 'signContract',
        summary: 'Sign a contract: contractCompleted',
        description:
          'Only by the client it was sent to, as itself: its session or signed in (anyone else who sees it: 403); once (a signed one: 409). values: a ' +
          'value for each client field that is not optional, and for no other (signature and initials: the typed name or ' +
          'initials; date: YYYY-MM-DD). Each failing field is named.',
        params: IdParams,
        body: ContractSign,
        response: { 200: Contract, ...WRITE_ERRORS },
      },
    },
    async (request) => service.signContract(database, request.caller, request.params.id, request.body),
  );
}

/** Making contract templates on the admin surface (as `portal contract-templates create`). */
export async function contractAdminRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database } = app.ctx;
  app.post(
    '/workspaces/:workspaceId/contract-templates',
    {
      schema: {
        ...adminDoc,
        operationId: 'adminCreateContractTemplate',
        summary: `Create a contract template with 1–${CONTRACT_FIELDS_MAX} fields`,
        description:
          'Each field: type, inputType (client, fixed with its value, or variable), page (default 1), isOptional (default false), ' +
          'label; its id given (unique in the template) or generated. fileUrl: the document’s http(s) address, copied to each contract.',
        params: WorkspaceParams,
        body: ContractTemplateCreate,
        response: { 200: ContractTemplate, ...ADMIN_WRITE_ERRORS },
      },
    },
    async (request) => service.createContractTemplate(database, request.caller, request.body),
  );
}
