/** Contract templates and the contracts sent from them (modules/resources/contracts). */

export const CONTRACT_FIELD_TYPES = ['signature', 'initials', 'text', 'date'] as const;
/** client: the recipient fills it when signing; fixed: the template's value; variable: given when the contract is sent. */
export const CONTRACT_INPUT_TYPES = ['client', 'fixed', 'variable'] as const;
export const CONTRACT_STATUSES = ['pending', 'signed'] as const;
type ContractStatus = (typeof CONTRACT_STATUSES)[number];

export interface ContractTemplatesTable {
  id: string;
  workspace_id: string;
  name: string;
  /** JSON text: array of `{id, type, inputType, isOptional, page, label?, value?}`, in the template's order */
  fields: string;
  /** The document's address (an http(s) URL the operator gave), or null */
  file_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContractsTable {
  id: string;
  workspace_id: string;
  contract_template_id: string;
  /** The recipient, in one of its companies: the contract goes with either. */
  client_id: string;
  company_id: string;
  /** The template's name and fields when sent (fixed and variable values filled; client values once signed). */
  name: string;
  fields: string;
  file_url: string | null;
  status: ContractStatus;
  /** The internal user or client who sent it, or the API key's id. */
  sent_by: string;
  submitted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ContractsTables {
  contract_templates: ContractTemplatesTable;
  contracts: ContractsTable;
}
