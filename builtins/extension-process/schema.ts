// Fields of an extension.process action: the process fields every process kind shares, plus the contract the
// extension must confirm in its handshake (protocol version, schemas, capabilities) and the idempotency the action
// declares for policy, plan and the ledger. The task input is checked against the action's own inputSchema.
import { z } from 'zod';
import { errorMessage, jsonSchemaValidator, processActionFields, type JsonValue } from '@agentctl/sdk';

export const PROTOCOL_VERSION = 'agentctl.dev/process-extension/v1';

/** Capabilities per action: a short list of names the extension confirms. */
const MAX_CAPABILITIES = 64;

/** A JSON Schema (2020-12) that compiles: an object or a boolean. */
const jsonSchema = (field: string) =>
  z
    .union([z.boolean(), z.record(z.string(), z.json())])
    .superRefine((schema, context) => {
      try {
        jsonSchemaValidator(schema as JsonValue);
      } catch (error) {
        context.addIssue({ code: 'custom', message: `${field} is not a valid JSON Schema: ${errorMessage(error)}` });
      }
    });

export const extensionProcessActionSchema = z
  .strictObject({
    ...processActionFields,
    protocolVersion: z.literal(PROTOCOL_VERSION).describe(`The extension protocol: ${PROTOCOL_VERSION}.`),
    idempotency: z
      .enum(['pure', 'idempotent', 'keyed', 'at_most_once', 'unknown'])
      .describe('What repeating one invocation does: policy, plan and the ledger take the effect to have this idempotency.'),
    capabilities: z
      .array(z.string().min(1))
      .max(MAX_CAPABILITIES)
      .default([])
      .superRefine((names, context) => {
        names.forEach((name, index) => {
          if (names.indexOf(name) !== index) context.addIssue({ code: 'custom', path: [index], message: `capability "${name}" is listed twice` });
        });
      })
      .describe('Capability names, in order; the handshake must list exactly these.'),
    inputSchema: jsonSchema('inputSchema').describe("JSON Schema of the task's with; the handshake must declare the same schema."),
    outputSchema: jsonSchema('outputSchema').describe("JSON Schema of the extension's output; the handshake must declare the same schema."),
  });

export type ExtensionProcessAction = z.output<typeof extensionProcessActionSchema>;

/** The input shape of the kind as a whole (`agentctl schema`); each action narrows it with its inputSchema. */
export const extensionProcessInputSchema = z.json().describe("Any JSON value; each action checks it against its own inputSchema.");

const inputSchemas = new WeakMap<object, z.ZodType>();

/**
 * The task input of one action: checked against the action's inputSchema by Ajv, each problem an issue at its path
 * (so `check` points at a static value that violates it, and dispatch refuses a rendered one). The properties the
 * schema names are listed as fields, for the compiler's suggestions.
 */
export function actionInputSchema(action: ExtensionProcessAction): z.ZodType {
  let schema = inputSchemas.get(action);
  if (!schema) {
    schema = withFields(action.inputSchema).superRefine((value, context) => {
      const validate = jsonSchemaValidator(action.inputSchema as JsonValue);
      if (validate(value)) return;
      for (const error of validate.errors ?? []) {
        const path = pointerSegments(error.instancePath);
        const params = error.params as { missingProperty?: string; additionalProperty?: string };
        if (error.keyword === 'required' && params.missingProperty !== undefined) {
          context.addIssue({ code: 'custom', path: [...path, params.missingProperty], message: "required by the action's inputSchema" });
        } else if (error.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
          context.addIssue({ code: 'custom', path: [...path, params.additionalProperty], message: "not allowed by the action's inputSchema" });
        } else {
          context.addIssue({ code: 'custom', path, message: `${error.message ?? 'invalid'} (inputSchema ${error.schemaPath})` });
        }
      }
    });
    inputSchemas.set(action, schema);
  }
  return schema;
}

/** An object with the schema's named properties as optional fields, or any value when it names none. */
function withFields(schema: unknown): z.ZodType {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (typeof schema !== 'object' || properties === null || typeof properties !== 'object' || Array.isArray(properties)) return z.json();
  return z.looseObject(Object.fromEntries(Object.keys(properties).map((name) => [name, z.json().optional()])));
}

/** The segments of a JSON Pointer such as `/items/0/name`, array indexes as numbers (as zod paths have them). */
function pointerSegments(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((segment) => (/^(?:0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}
