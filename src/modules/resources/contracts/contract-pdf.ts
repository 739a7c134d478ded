/**
 * A signed contract as a PDF (GET /v1/contracts/{id}/pdf): the template's fields with the values the sender
 * and the signer gave, who signed and when, and the contract's audit trail (its entries in the audit log).
 */
import type { Readable } from 'node:stream';
import type { TrailEntry } from '../../../audit/index.js';
import { type Brand, pdfTime, writePdf } from '../../../lib/pdf.js';
import type { Contract, ContractField } from './contracts.schemas.js';

/** What the document shows besides the contract itself. */
export interface ContractParties {
  brand: Brand;
  /** the client it was sent to, who signed it */
  signer: { name: string; email: string };
  /** its company (absent when it is the client's placeholder company) */
  company?: { name: string };
  trail: readonly TrailEntry[];
}

const FILLED_BY: Record<ContractField['inputType'], string> = { fixed: 'Template', variable: 'Sender', client: 'Signer' };
const TYPE_LABEL: Record<ContractField['type'], string> = { signature: 'Signature', initials: 'Initials', text: 'Text', date: 'Date' };

/** The document's file name: the contract's name and id, in characters any file system takes. */
export const contractFileName = (contract: Contract) =>
  `${
    contract.name
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'contract'
  }-${contract.id}.pdf`;

/** Who an entry's actor is, as the trail lists it (the signer by name). */
function actorOf(entry: TrailEntry, contract: Contract, signerName: string): string {
  if (entry.actorType === 'clientUser') return entry.actorId === contract.clientId ? `Client ${signerName}` : `Client ${entry.actorId}`;
  if (entry.actorType === 'internalUser') return `Internal user ${entry.actorId}`;
  if (entry.apiKeyRef) return `API key ${entry.apiKeyRef}`;
  return 'System';
}

export function contractPdf(contract: Contract, parties: ContractParties): Promise<Readable> {
  const signedAt = contract.submissionDate ?? contract.updatedAt;
  const signer = `${parties.signer.name} <${parties.signer.email}>`;
  return writePdf({ title: contract.name, author: parties.brand.name }, parties.brand, (pdf) => {
    pdf.header(contract.name, `Signed by ${signer} on ${pdfTime(signedAt)}`);
    pdf.fields([
      ['From', parties.brand.name],
      ['Signer', parties.company ? `${signer}\n${parties.company.name}` : signer],
      ['Sent', pdfTime(contract.shareDate)],
      ['Signed', pdfTime(signedAt)],
      ['Contract', contract.id],
    ]);
    pdf.heading('Fields');
    pdf.table(
      [
        { label: 'Field', width: 0.3 },
        { label: 'Type', width: 0.14 },
        { label: 'Filled by', width: 0.14 },
        { label: 'Value', width: 0.42 },
      ],
      contract.fields.map((field) => [
        field.label ?? field.id,
        TYPE_LABEL[field.type],
        FILLED_BY[field.inputType],
        field.value ?? (field.isOptional ? '(left empty)' : ''),
      ]),
    );
    pdf.heading('Audit trail');
    pdf.table(
      [
        { label: 'Time', width: 0.2 },
        { label: 'Event', width: 0.22 },
        { label: 'By', width: 0.26 },
        { label: 'Details', width: 0.32 },
      ],
      parties.trail.map((entry) => [
        pdfTime(entry.createdAt),
        entry.eventType,
        entry.ip ? `${actorOf(entry, contract, parties.signer.name)}\nfrom ${entry.ip}` : actorOf(entry, contract, parties.signer.name),
        entry.description,
      ]),
    );
    pdf.paragraph('Times are UTC. The trail lists the audit log’s entries about this contract up to this download.', { muted: true });
  });
}
