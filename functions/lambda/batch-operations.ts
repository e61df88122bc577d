/**
 * The operations a batch may run, as the functions that only check their inputs see them (the
 * batches function validating a create, the sweep pricing a paused batch's next item): each with its
 * schema and its family's own input check, and a run that refuses, since only a group's consumer runs
 * items. They read no dataset and open no SMTP or browser session.
 */
import { batchGroupMembers } from '../../schemas/functions.js';
import { emailInputChecks } from '../../shared/operations/email-input-checks.js';
import type { InputCheck, OperationImplementation } from '../../shared/pipeline/operation.js';

export const batchGroups = batchGroupMembers();
export const batchOperations = [...batchGroups.values()].flat();

const inputChecks = new Map<string, InputCheck<never>>(Object.entries(emailInputChecks));

export const checksOnly = (): OperationImplementation[] =>
  batchOperations.map(({ id }) => {
    const refuseInput = inputChecks.get(id);
    const run = () => Promise.reject(new Error(`${id} runs in its batch consumer, not here`));
    return refuseInput ? { id, run, refuseInput } : { id, run };
  });
