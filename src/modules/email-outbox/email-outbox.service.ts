import { listAs } from '../../db/paging.js';
import * as repo from './email-outbox.repository.js';

/** The workspace's outbox, newest first (the operator's surfaces check the workspace exists). */
export const listOutbox = listAs(repo.listOutbox);
