import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { AccountActivityItemSchema } from '../accounts/accounts.schemas.js';
import { COMMON_ERROR_STATUSES, errorResponses } from '../common/errors.js';
import { PATH_IDS } from '../common/ids.js';
import { operation } from '../common/operations.js';
import {
  CreatePersonBodySchema,
  CreatePersonLogBodySchema,
  PersonLogSchema,
  PersonSchema,
} from './persons.schemas.js';

const c = initContract();

/** Person and person log operations. */
export const personsContract = c.router({
  createPerson: {
    method: 'POST',
    path: '/persons',
    body: CreatePersonBodySchema,
    responses: { 201: PersonSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 409) },
    summary: 'Create a person',
    description:
      "Creates a contact (name, email). The person is linked to the account of the email's domain, which is created when new. 409 when a person with this email (in any letter case) exists.",
    metadata: operation('Persons', 'create', { resource: 'person' }),
  },
  createPersonLog: {
    method: 'POST',
    path: '/person_logs',
    body: CreatePersonLogBodySchema,
    responses: { 201: PersonLogSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Record a person log',
    description:
      "Records an event about a person (personId from createPerson or an account's linkedPersons); it shows in the account's activity with includePersonActivity.",
    metadata: operation('Person Logs', 'create'),
  },
  deletePersonLog: {
    method: 'DELETE',
    path: '/person_logs/:person_log_id',
    pathParams: z.object({ person_log_id: PATH_IDS.person_log_id }),
    body: c.noBody(),
    responses: { 200: AccountActivityItemSchema, ...errorResponses(...COMMON_ERROR_STATUSES, 404) },
    summary: 'Delete a person log',
    description:
      "Soft-deletes a person log (personLogId from createPersonLog or listAccountActivity): deletedAt is set, the account's activity shows it only with includeDeleted=true, counts stay exact. Deleting it again returns the same item.",
    metadata: operation('Person Logs', 'delete'),
  },
});
