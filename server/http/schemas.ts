// OpenAPI components shared by every route: Meta, ErrorBody, ErrorEnvelope, and the error responses
// each router declares once.
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { ErrorBodySchema, ErrorEnvelopeSchema, MetaSchema } from '../../shared/envelope/index.ts';

export const SHARED_SCHEMAS: TSchema[] = [MetaSchema, ErrorBodySchema, ErrorEnvelopeSchema];

export function addSharedSchemas(app: FastifyInstance): void {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
}

const errorRef = (description: string) => ({ ...Type.Ref('ErrorEnvelope'), description });

export const ERROR_RESPONSES: Record<number, unknown> = {
  400: errorRef('Invalid input (category `validation`)'),
  401: errorRef('Missing or wrong bearer token (category `unauthorized`)'),
  403: errorRef('Refused: `permission`, or `module_disabled` naming the module to enable'),
  404: errorRef('Unknown entity or route (category `not_found`)'),
  500: errorRef('Unexpected failure (category `internal`); the message quotes an error id from the hub log'),
  503: errorRef('`transient` or `unavailable`; retry after the Retry-After header'),
};

/** 200 body of a tool route: the tool's data (its meta moved out) and the envelope's meta. */
export function okResponseSchema(data: TSchema): TSchema {
  return Type.Object({ data, meta: Type.Ref('Meta') }, { description: 'Success' });
}
